package cn.agentao.agent.release;

import cn.agentao.agent.testing.AgentProcess;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The native image's reachability metadata stays complete: every class Jackson binds (computed from the compiled
 * code by {@link NativeMetadata}) is registered, and Picocli's metadata is generated at compile time.
 * After adding a record or a Jackson-annotated class, regenerate with:
 * {@code ./mvnw -q test -Dtest=NativeMetadataTest -Dnative.metadata.write=true}
 */
class NativeMetadataTest {
    @Test
    void everyClassJacksonBindsIsRegistered() throws Exception {
        Path file = AgentProcess.home().resolve(NativeMetadata.FILE);
        Set<String> required = NativeMetadata.requiredTypes();
        if (Boolean.getBoolean("native.metadata.write")) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, NativeMetadata.render(required));
        }
        assertTrue(Files.isRegularFile(file), file + " is missing");
        Set<String> missing = new TreeSet<>(required);
        missing.removeAll(NativeMetadata.listedTypes(file));
        assertEquals(Set.of(), missing, "classes Jackson binds but " + file + " does not register; regenerate it with "
                + "./mvnw -q test -Dtest=NativeMetadataTest -Dnative.metadata.write=true");
    }

    @Test
    void theComputationFindsWhatWeKnowJacksonBinds() throws Exception {
        Set<String> required = NativeMetadata.requiredTypes();
        // One of each kind: a sealed protocol type and its subtypes, a nested record reached through a component,
        // an MCP schema record, a LangChain4j message saved with sessions.
        for (String t : java.util.List.of("cn.agentao.agent.door.acp.protocol.SessionUpdate",
                "cn.agentao.agent.door.acp.protocol.SessionUpdate$AgentMessageChunk", "cn.agentao.agent.core.content.PlanEntry",
                "io.modelcontextprotocol.spec.McpSchema$CallToolResult", "dev.langchain4j.data.message.UserMessage")) {
            assertTrue(required.contains(t), t + " not found among " + required.size() + " computed types");
        }
        assertFalse(required.contains("cn.agentao.agent.cli.Main"), "plain classes are not bound");
    }

    @Test
    void picocliMetadataIsGeneratedAtCompileTime() {
        Path generated = AgentProcess.home().resolve("target/classes/META-INF/native-image/picocli-generated/cn.agentao/agent/reflect-config.json");
        assertTrue(Files.isRegularFile(generated), "picocli-codegen's annotation processor did not write " + generated);
    }
}
