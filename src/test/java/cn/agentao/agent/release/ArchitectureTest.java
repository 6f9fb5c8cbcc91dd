package cn.agentao.agent.release;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** The one rule per boundary of docs/architecture.md, on the compiled main classes: a new import that breaks one fails here. */
class ArchitectureTest {
    static JavaClasses classes;

    @BeforeAll
    static void load() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("cn.agentao.agent");
    }

    @Test
    void theCoreKnowsNoProtocolNoFrontDoorNoConnectorAndNoBuiltinTool() {
        // the tool contract lives in core.tool; the built-ins (tools) and the connectors (connect) plug in from outside
        noClasses().that().resideInAPackage("cn.agentao.agent.core..")
                .should().dependOnClassesThat().resideInAnyPackage("cn.agentao.agent.door..", "cn.agentao.agent.jsonrpc..",
                        "cn.agentao.agent.transport..", "cn.agentao.agent.cli..", "cn.agentao.agent.tools..",
                        "cn.agentao.agent.connect..")
                .check(classes);
    }

    @Test
    void frontDoorsDoNotUseEachOther() {
        // except ACP's vocabulary, which the terminal's stream-json speaks by definition (one session/update a line)
        slices().matching("cn.agentao.agent.door.(*)..").should().notDependOnEachOther()
                .ignoreDependency(resideInAPackage("cn.agentao.agent.door.terminal.."), resideInAPackage("cn.agentao.agent.door.acp.protocol.."))
                .check(classes);
    }

    @Test
    void connectorsAreReachedThroughTheCoreNotFromDoorsOrTheCommandLine() {
        noClasses().that().resideInAPackage("cn.agentao.agent.connect..")
                .should().dependOnClassesThat().resideInAnyPackage("cn.agentao.agent.door..", "cn.agentao.agent.jsonrpc..",
                        "cn.agentao.agent.transport..", "cn.agentao.agent.cli..")
                .check(classes);
    }

    @Test
    void theLayersBelowTheCoreUseOnlyItsVocabulary() {
        noClasses().that().resideInAnyPackage("cn.agentao.agent.tools..", "cn.agentao.agent.permission..",
                        "cn.agentao.agent.sandbox..", "cn.agentao.agent.model..", "cn.agentao.agent.store..",
                        "cn.agentao.agent.childenv..", "cn.agentao.agent.net..", "cn.agentao.agent.trust..", "cn.agentao.agent.skills..",
                        "cn.agentao.agent.util..", "cn.agentao.agent.memory..")
                .should().dependOnClassesThat(resideInAPackage("cn.agentao.agent.core..")
                        .and(not(resideInAnyPackage("cn.agentao.agent.core.content..", "cn.agentao.agent.core.repository..",
                                "cn.agentao.agent.core.record..", "cn.agentao.agent.core.tool.."))))
                .check(classes);
    }

    @Test
    void configurationIsReadOnceByItsOwnPackage() throws java.io.IOException {
        // config is a leaf every part may use: it knows nothing of the agent but util
        noClasses().that().resideInAPackage("cn.agentao.agent.config..")
                .should().dependOnClassesThat(resideInAPackage("cn.agentao.agent..")
                        .and(not(resideInAnyPackage("cn.agentao.agent.config..", "cn.agentao.agent.util.."))))
                .check(classes);
        // the parts with an entry in config.json read the one parsed tree (config.ConfigJson), never the file
        for (String method : new String[] {"readString", "readAllBytes", "newInputStream", "newBufferedReader"}) {
            noClasses().that().haveNameMatching("cn\\.agentao\\.agent\\..*\\.(UserConfigFile|SmcpConfig|A2aAgentConfig|WebSearchConfig"
                            + "|AgoraToolSource|Sandboxes|SmcpToolSource|RemoteAgents|ToolCalls|CoreFactory|Engine)(\\$.*)?")
                    .should().callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                            com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner(
                                    com.tngtech.archunit.core.domain.properties.HasName.Predicates.name("java.nio.file.Files")))
                            .and(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                                    com.tngtech.archunit.core.domain.properties.HasName.Predicates.name(method))))
                    .check(classes);
        }
        // and no one else names the file: its name is config.ConfigJson.USER_FILE
        try (var files = java.nio.file.Files.walk(java.nio.file.Path.of("src/main/java/cn/agentao/agent"))) {
            java.util.List<String> naming = files.filter(f -> f.toString().endsWith(".java") && !f.toString().contains("/config/"))
                    .filter(f -> {
                        try {
                            return java.nio.file.Files.readString(f).contains("\"config.json\"");
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }).map(Object::toString).toList();
            org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(), naming);
        }
    }

    @Test
    void theEnvironmentIsReadByTheConfigurationNotByEachPart() {
        // the launchers (cli) hand the process's environment to config.AgentConfig, whose sections the parts take;
        // childenv filters it for children, model looks up the variables the user's catalog names
        noClasses().that().resideOutsideOfPackages("cn.agentao.agent.config..", "cn.agentao.agent.childenv..",
                        "cn.agentao.agent.cli..", "cn.agentao.agent.model..")
                .and().doNotHaveFullyQualifiedName("cn.agentao.agent.util.UserHome") // its no-argument form, for paths alone
                .and().doNotHaveFullyQualifiedName("cn.agentao.agent.tools.search.Ripgrep") // AGENT_SEARCH, read on the first search only
                .should().callMethod(System.class, "getenv")
                .orShould().callMethod(System.class, "getenv", String.class)
                .check(classes);
    }

    @Test
    void theCoresStorageKnowsNoDoorsDataAndTrustKnowsNoConnector() {
        // A2A's tasks are the A2A door's (door.a2a.TaskRepository), not the session repository's
        noClasses().that().resideInAPackage("cn.agentao.agent.core.repository..").should().haveSimpleNameContaining("Task")
                .check(classes);
        noClasses().that().resideInAnyPackage("cn.agentao.agent.trust..", "cn.agentao.agent.model..", "cn.agentao.agent.store..")
                .should().dependOnClassesThat().resideInAnyPackage("cn.agentao.agent.connect..", "cn.agentao.agent.tools..")
                .check(classes);
    }

    @Test
    void nothingButTheCommandLineStartsAFrontDoor() {
        noClasses().that().resideOutsideOfPackages("cn.agentao.agent.cli..", "cn.agentao.agent.door..")
                .should().dependOnClassesThat().resideInAPackage("cn.agentao.agent.door..")
                .check(classes);
    }
}
