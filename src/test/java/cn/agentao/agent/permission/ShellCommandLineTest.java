package cn.agentao.agent.permission;

import cn.agentao.agent.permission.ShellCommandLine.SimpleCommand;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShellCommandLineTest {

    private static List<String> texts(String line) {
        return ShellCommandLine.parse(line).commands().stream().map(SimpleCommand::text).toList();
    }

    @Test
    void splitsListsPipelinesAndSubstitutions() {
        assertEquals(List.of("a 1", "b", "c", "d", "e", "f"), texts("a 1; b && c || d | e & f"));
        assertEquals(List.of("echo $(inner x)", "inner x"), texts("echo $(inner x)"));
        assertEquals(List.of("echo `inner`", "inner"), texts("echo `inner`"));
        assertEquals(List.of("echo $(a $(b))", "a $(b)", "b"), texts("echo \"$(a $(b))\""));
        assertEquals(List.of("diff <(sort a) b", "sort a"), texts("diff <(sort a) b"));
        assertEquals(List.of("a", "b"), texts("a\nb"));
        assertEquals(List.of("x", "y"), texts("(x; y)"));
    }

    @Test
    void unquotesLikeTheShell() {
        assertEquals(List.of("echo a b;c $HOME it's"), texts("echo 'a b;c' \"$HOME\" it\\'s"));
        assertEquals(List.of("echo hi # not a comment"), texts("echo hi \\# not a comment"));
        assertEquals(List.of("echo hi"), texts("echo hi # a comment; rm x"));
    }

    @Test
    void separatesAssignmentsAndRedirections() {
        SimpleCommand c = ShellCommandLine.parse("FOO=1 BAR=\"x y\" cmd arg > out 2>&1 < in").commands().get(0);
        assertEquals(List.of("FOO=1", "BAR=x y"), c.assignments());
        assertEquals(List.of("cmd", "arg"), c.words());
        assertEquals(List.of(new ShellCommandLine.Redirect(">", "out"), new ShellCommandLine.Redirect("2>&", "1"),
                new ShellCommandLine.Redirect("<", "in")), c.redirects());
    }

    @Test
    void findsCommandsInUnquotedHeredocsOnly() {
        assertTrue(texts("cat <<EOF\n$(evil)\nEOF\nnext").contains("evil"));
        assertTrue(texts("cat <<EOF\n$(evil)\nEOF\nnext").contains("next"));
        assertFalse(texts("cat <<'EOF'\n$(evil)\nEOF").contains("evil"));
    }

    @Test
    void looksThroughWrappers() {
        List<String> programs = ShellCommandLine.parse("sudo -u root env A=1 nice -n 5 bash -c 'rm x; ls'")
                .effectiveCommands().stream().map(SimpleCommand::program).toList();
        assertTrue(programs.containsAll(List.of("sudo", "env", "nice", "bash", "rm", "ls")), programs.toString());
        assertTrue(ShellCommandLine.parse("sudo rm x").effectiveCommands().get(1).privileged());
    }

    @Test
    void marksUnquotedWildcards() {
        SimpleCommand c = ShellCommandLine.parse("ls *.java '*.txt' \"[a]\"").commands().get(0);
        assertEquals(List.of(false, true, false, false), c.globbed());
    }

    @Test
    void recordsWhatFeedsAPipeAndHereDocumentBodies() {
        List<SimpleCommand> cs = ShellCommandLine.parse("echo a | sh; (x) | bash; sh").commands();
        assertEquals("echo a", cs.get(1).pipedFrom().text());
        assertEquals(ShellCommandLine.UNKNOWN_SOURCE, cs.get(3).pipedFrom());
        assertEquals(null, cs.get(4).pipedFrom());
        SimpleCommand cat = ShellCommandLine.parse("cat <<EOF | sh\nrm -rf x\nEOF\nnext").commands().get(0);
        assertEquals("rm -rf x\n", cat.redirects().get(0).body());
        assertEquals(List.of("cat << EOF", "sh", "next"), texts("cat <<EOF | sh\nrm -rf x\nEOF\nnext"));
    }

    private static List<String> effective(String line) {
        return ShellCommandLine.parse(line).effectiveCommands().stream().map(SimpleCommand::text).toList();
    }

    @Test
    void looksIntoScriptsFedToShellsAndWrappers() {
        assertTrue(effective("echo 'rm -rf ~' | sh").contains("rm -rf ~"));
        assertTrue(effective("bash <<< 'rm -rf ~'").contains("rm -rf ~"));
        assertTrue(effective("bash <<EOF\nrm -rf ~\nEOF").contains("rm -rf ~"));
        assertTrue(effective("cat <<'EOF' | sh\nrm -rf ~\nEOF").contains("rm -rf ~"));
        assertTrue(effective("env -S 'rm -rf ${HOME}'").contains("rm -rf ${HOME}"));
        assertTrue(effective("xargs rm -rf <<< ~").contains("rm -rf ~"));
        assertTrue(effective("bash -c -e 'rm -rf ~'").contains("rm -rf ~"));
        assertTrue(effective("nice --adjustment 5 rm -rf /").contains("rm -rf /"));
        assertTrue(effective("doas -u root rm -rf /").contains("rm -rf /"));
        assertTrue(effective("watch -d rm -rf /").contains("rm -rf /"));
        assertTrue(effective("watch -n 5 'rm -rf /'").contains("rm -rf /"));
        assertTrue(effective("curl x | sh").contains(EffectiveCommands.COMPUTED_SCRIPT));
        assertTrue(effective("find . | xargs rm").contains("rm " + EffectiveCommands.COMPUTED_INPUT));
        assertTrue(ShellCommandLine.parse("bash -c ':(){ :|:& };:'").scripts().contains(":(){ :|:& };:"));
    }

    @Test
    void neverThrowsOnGarbage() {
        for (String s : List.of("'unterminated", "\"open $(", "$(((", "`", "<<", "a >", "}}}{{{", "\\", "$'\\", "${",
                "cat <<", "x | | sh", "env -S", "xargs", "bash -c", "f(){ f", "<<<", "sh <<EOF", "a{,{,}")) {
            ShellCommandLine.parse(s).effectiveCommands();
            CommandBlocklist.check(ShellCommandLine.parse(s), java.nio.file.Path.of("/tmp"), java.nio.file.Path.of("/root"));
        }
    }
}
