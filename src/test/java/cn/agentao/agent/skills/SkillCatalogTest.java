package cn.agentao.agent.skills;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The front matter as Claude Code and Agentao users write it, and the catalogue's bounds. */
class SkillCatalogTest {
    @TempDir
    Path dir;

    private Skill write(String folder, String text) throws Exception {
        Path d = Files.createDirectories(dir.resolve(folder));
        Files.writeString(d.resolve("SKILL.md"), text);
        return SkillCatalog.parse(d, false, "test");
    }

    @Test
    void allowedToolsAsAFlowListABlockListACommaStringOrSpaces() throws Exception {
        assertEquals(List.of("Bash", "Read"), write("a", "---\nname: a\ndescription: d\nallowed-tools: [Bash, \"Read\"]\n---\n").allowedTools());
        assertEquals(List.of("Bash", "Read"), write("b", "---\nname: b\ndescription: d\nallowed-tools:\n  - Bash\n  - Read\n---\n").allowedTools());
        assertEquals(List.of("Bash(git:*)", "Read"), write("c", "---\nname: c\ndescription: d\nallowed-tools: Bash(git:*), Read\n---\n").allowedTools());
        assertEquals(List.of("Bash", "Read"), write("e", "---\nname: e\ndescription: d\nallowed-tools: Bash Read\n---\n").allowedTools());
        assertEquals(List.of(), write("f", "---\nname: f\ndescription: d\n---\n").allowedTools());
    }

    @Test
    void descriptionsQuotedFoldedOrContinuedAndTheFolderAsDefaultName() throws Exception {
        assertEquals("it's: here", write("q", "---\nname: q\ndescription: 'it''s: here'\n---\n").description());
        assertEquals("one two", write("g", "---\nname: g\ndescription: >\n  one\n  two\n---\n").description());
        assertEquals("one two", write("h", "---\nname: h\ndescription: one\n  two\n---\nbody\n").description());
        Skill unnamed = write("my-skill", "---\n# a comment\ndescription: d # trailing comment\n---\n");
        assertEquals("my-skill", unnamed.name());
        assertEquals("d", unnamed.description());
    }

    @Test
    void whatCannotBeUsedSaysWhy() throws Exception {
        assertEquals("its front matter has no description",
                assertThrows(FrontMatter.Invalid.class, () -> write("x", "---\nname: x\n---\n")).getMessage());
        assertTrue(assertThrows(FrontMatter.Invalid.class, () -> write("y", "---\nname: bad name\ndescription: d\n---\n"))
                .getMessage().contains("'bad name'"));
        assertTrue(assertThrows(FrontMatter.Invalid.class, () -> write("z", "---\nname: z\ndescription: d\n"))
                .getMessage().contains("no closing '---'"));
        assertTrue(assertThrows(FrontMatter.Invalid.class, () -> write("big", "---\nname: big\ndescription: d\n---\n"
                + "x".repeat(SkillCatalog.MAX_FILE_BYTES))).getMessage().contains("bytes"));
    }

    @Test
    void atMostMaxSkillsAreLoadedAndTheRestIsANotice() throws Exception {
        Path user = dir.resolve("config/skills");
        for (int i = 0; i < SkillCatalog.MAX_SKILLS + 2; i++) {
            Path d = Files.createDirectories(user.resolve(String.format("s%03d", i)));
            Files.writeString(d.resolve("SKILL.md"), "---\ndescription: skill " + i + "\n---\n");
        }
        SkillCatalog c = SkillCatalog.discover(Files.createDirectories(dir.resolve("ws")), dir.resolve("config"), false);
        assertEquals(SkillCatalog.MAX_SKILLS, c.all().size());
        assertTrue(c.notices().getFirst().contains("s100") && c.notices().getFirst().contains("at most 100"), c.notices().toString());
    }
}
