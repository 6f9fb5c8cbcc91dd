package cn.agentao.agent.model;

import cn.agentao.agent.config.ConfigLocations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelCatalogTest {
    @TempDir
    Path dir;

    private ConfigLocations locations;

    @BeforeEach
    void setUp() throws Exception {
        Files.createDirectories(dir.resolve("project"));
        Files.createDirectories(dir.resolve("config/agent"));
        // a project the user trusts: its .env applies whole (ProjectDotEnvTest covers one that is not trusted)
        locations = ConfigLocations.standard(dir.resolve("project"), Map.of("XDG_CONFIG_HOME", dir.resolve("config").toString()), true);
    }

    private void projectDotEnv(String text) throws Exception {
        Files.writeString(locations.projectDotEnv(), text);
    }

    private void userDotEnv(String text) throws Exception {
        Files.writeString(locations.userDotEnv(), text);
    }

    private void configJson(String text) throws Exception {
        Files.writeString(locations.userConfigJson(), text);
    }

    private ModelCatalog catalog(Map<String, String> environment) {
        return ModelCatalog.load(environment, locations);
    }

    @Test
    void userConfigDirFollowsXdgConfigHome() {
        assertEquals(dir.resolve("config/agent/config.json"), locations.userConfigJson());
        assertEquals(dir.resolve("config/agent/.env"), locations.userDotEnv());
        assertEquals(dir.resolve("project/.env"), locations.projectDotEnv());
        assertEquals(Path.of(System.getProperty("user.home"), ".config", "agent"),
                ConfigLocations.userConfigDir(Map.of("XDG_CONFIG_HOME", "relative/ignored")));
    }

    @Test
    void openAiFromTheEnvironmentWithDefaults() {
        ModelCatalog catalog = catalog(Map.of("OPENAI_API_KEY", "sk-env"));

        assertTrue(catalog.configured());
        ModelChoice choice = catalog.defaultChoice().orElseThrow();
        assertEquals("openai/" + KnownModels.defaultModel("openai", ProviderKind.OPENAI_COMPATIBLE), choice.value());
        ResolvedProvider provider = catalog.resolve("openai");
        assertEquals(ProviderKind.OPENAI_COMPATIBLE, provider.kind());
        assertEquals("https://api.openai.com/v1", provider.baseUrl());
        assertEquals("sk-env", provider.apiKey());
        assertEquals("OPENAI_API_KEY (from the environment)", provider.apiKeyOrigin());
        assertFalse(provider.toString().contains("sk-env"));
    }

    @Test
    void environmentWinsOverProjectDotEnvWhichWinsOverUserDotEnv() throws Exception {
        projectDotEnv("OPENAI_API_KEY=sk-project\nOPENAI_MODEL=project-model\n");
        userDotEnv("OPENAI_API_KEY=sk-user\nOPENAI_MODEL=user-model\nLLM_TEMPERATURE=0.7\n");

        ModelCatalog fromFiles = catalog(Map.of());
        assertEquals("sk-project", fromFiles.resolve("openai").apiKey());
        assertEquals("openai/project-model", fromFiles.defaultChoice().orElseThrow().value());
        assertEquals(0.7, fromFiles.defaultOptions().temperature());

        ModelCatalog withEnvironment = catalog(Map.of("OPENAI_API_KEY", "sk-env", "OPENAI_MODEL", "env-model"));
        assertEquals("sk-env", withEnvironment.resolve("openai").apiKey());
        assertEquals("openai/env-model", withEnvironment.defaultChoice().orElseThrow().value());
    }

    @Test
    void keyAndBaseUrlComeFromTheSameLayer() throws Exception {
        // A key exported for some other tool must not be sent to the gateway a project's .env names.
        projectDotEnv("OPENAI_API_KEY=sk-gateway\nOPENAI_BASE_URL=https://gateway.example.com/v1\n");

        ResolvedProvider provider = catalog(Map.of("OPENAI_API_KEY", "sk-shell")).resolve("openai");

        assertEquals("sk-shell", provider.apiKey());
        assertEquals("https://api.openai.com/v1", provider.baseUrl());
        assertEquals("https://gateway.example.com/v1", catalog(Map.of()).resolve("openai").baseUrl());
    }

    @Test
    void blankValuesDoNotHideRealOnes() throws Exception {
        projectDotEnv("ANTHROPIC_API_KEY=sk-ant-real\n");

        ModelCatalog catalog = catalog(Map.of("LLM_PROVIDER", "anthropic", "ANTHROPIC_API_KEY", ""));

        assertEquals("sk-ant-real", catalog.resolve("anthropic").apiKey());
        assertEquals(ProviderKind.ANTHROPIC, catalog.resolve("ANTHROPIC").kind());
    }

    @Test
    void llmProviderFromDotEnvSelectsAKnownOpenAiCompatibleProvider() throws Exception {
        projectDotEnv("LLM_PROVIDER=DEEPSEEK\nDEEPSEEK_API_KEY=sk-ds\n");

        ModelCatalog catalog = catalog(Map.of());

        assertEquals("deepseek/deepseek-chat", catalog.defaultChoice().orElseThrow().value());
        assertEquals("https://api.deepseek.com/v1", catalog.resolve("deepseek").baseUrl());
        assertEquals(ProviderKind.OPENAI_COMPATIBLE, catalog.resolve("deepseek").kind());
    }

    @Test
    void ollamaNeedsNoKey() {
        ModelCatalog catalog = catalog(Map.of("LLM_PROVIDER", "OLLAMA"));

        assertTrue(catalog.configured());
        assertEquals(ProviderKind.OLLAMA, catalog.resolve("ollama").kind());
        assertEquals("http://localhost:11434", catalog.resolve("ollama").baseUrl());
        assertNull(catalog.resolve("ollama").apiKey());
    }

    @Test
    void apiFormatOverridesTheKindAPrefixImplies() {
        ModelCatalog catalog = catalog(Map.of("LLM_PROVIDER", "ANTHROPIC", "ANTHROPIC_API_KEY", "k",
                "ANTHROPIC_BASE_URL", "https://gateway/v1", "ANTHROPIC_API_FORMAT", "openai-completions"));

        assertEquals(ProviderKind.OPENAI_COMPATIBLE, catalog.resolve("anthropic").kind());
    }

    @Test
    void nothingConfiguredExplainsWhatToSet() {
        ModelCatalog catalog = catalog(Map.of());

        assertFalse(catalog.configured());
        assertTrue(catalog.choices().isEmpty());
        String help = catalog.missingConfigurationHelp();
        assertTrue(help.contains("set OPENAI_API_KEY "), help);
        assertTrue(help.contains("OPENAI_BASE_URL and OPENAI_MODEL are optional"), help);
        assertTrue(help.contains(locations.projectDotEnv().toString()), help);
        assertTrue(help.contains(locations.userConfigJson().toString()), help);
        assertTrue(help.contains("LLM_PROVIDER=ANTHROPIC with ANTHROPIC_API_KEY"), help);
    }

    @Test
    void unknownPrefixNeedsBaseUrlAndModelAndHelpNamesExactlyThose() {
        ModelCatalog catalog = catalog(Map.of("LLM_PROVIDER", "qwen", "QWEN_API_KEY", "sk-q"));

        assertFalse(catalog.configured());
        String help = catalog.missingConfigurationHelp();
        assertTrue(help.contains("To use QWEN, set QWEN_BASE_URL and QWEN_MODEL "), help);
        assertFalse(help.contains("QWEN_API_KEY"), help);
    }

    @Test
    void configJsonListsSeveralProvidersAndModels() throws Exception {
        configJson("""
                {
                  "providers": {
                    "openai": {"kind": "openai", "apiKeyEnv": "MY_OPENAI_KEY", "models": ["gpt-4o", "gpt-4o-mini"]},
                    "DeepSeek": {
                      "kind": "openai", "apiKey": "sk-ds-literal", "baseUrl": "https://api.deepseek.com/v1",
                      "models": ["deepseek-chat", {"id": "deepseek-reasoner", "name": "DeepSeek R", "contextWindow": 64000}],
                      "reasoningEffort": ["low", "medium", "high"]
                    },
                    "claude": {"kind": "anthropic", "models": ["claude-sonnet-4-6"]},
                    "local": {"kind": "ollama", "models": ["llama3.2"]}
                  },
                  "default": "deepseek/deepseek-reasoner"
                }
                """);

        ModelCatalog catalog = catalog(Map.of("MY_OPENAI_KEY", "sk-mine"));

        assertEquals(List.of("openai/gpt-4o", "openai/gpt-4o-mini", "deepseek/deepseek-chat", "deepseek/deepseek-reasoner",
                "local/llama3.2"), catalog.choices().stream().map(ModelChoice::value).toList());
        ModelChoice reasoner = catalog.defaultChoice().orElseThrow();
        assertEquals("deepseek/deepseek-reasoner", reasoner.value());
        assertEquals("DeepSeek R", reasoner.displayName());
        assertTrue(reasoner.supportsReasoningEffort());
        assertEquals(List.of("low", "medium", "high"), reasoner.reasoningEfforts());
        assertFalse(catalog.find("openai/gpt-4o").orElseThrow().supportsReasoningEffort());
        assertEquals(64000, catalog.contextWindow(reasoner));
        assertEquals(128_000, catalog.contextWindow(catalog.find("openai/gpt-4o").orElseThrow()));
        assertEquals("sk-ds-literal", catalog.resolve("deepseek").apiKey());
        assertEquals("sk-mine", catalog.resolve("openai").apiKey());
        assertEquals("MY_OPENAI_KEY (from the environment)", catalog.resolve("openai").apiKeyOrigin());
        assertFalse(catalog.toString().contains("sk-"));
        String help = catalog.missingConfigurationHelp();
        assertTrue(help.contains("provider 'claude' in " + locations.userConfigJson() + " needs CLAUDE_API_KEY"), help);
        assertThrows(UnknownProviderException.class, () -> catalog.resolve("claude"));
    }

    @Test
    void environmentSelectionBeatsConfigJsonDefault() throws Exception {
        configJson("""
                {"providers": {"deepseek": {"apiKey": "k", "models": ["deepseek-chat"]}}, "default": "deepseek/deepseek-chat"}
                """);

        assertEquals("deepseek/deepseek-chat", catalog(Map.of("OPENAI_API_KEY", "sk")).defaultChoice().orElseThrow().value());
        ModelCatalog selected = catalog(Map.of("LLM_PROVIDER", "OPENAI", "OPENAI_API_KEY", "sk"));
        assertEquals("openai", selected.defaultChoice().orElseThrow().providerId());
        assertEquals(List.of("openai", "deepseek"), selected.choices().stream().map(ModelChoice::providerId).toList());
    }

    @Test
    void environmentModelJoinsTheConfigJsonEntryOfTheSameProvider() throws Exception {
        configJson("""
                {"providers": {"openai": {"models": ["gpt-4o"]}}}
                """);

        ModelCatalog catalog = catalog(Map.of("OPENAI_API_KEY", "sk", "OPENAI_MODEL", "o3"));

        assertEquals(List.of("openai/o3", "openai/gpt-4o"), catalog.choices().stream().map(ModelChoice::value).toList());
        assertEquals("openai/o3", catalog.defaultChoice().orElseThrow().value());
        assertTrue(catalog.defaultChoice().orElseThrow().supportsReasoningEffort(), "o3 takes a reasoning effort");
    }

    @Test
    void brokenConfigJsonIsReportedNotFatal() throws Exception {
        configJson("{ not json");

        ModelCatalog catalog = catalog(Map.of("OPENAI_API_KEY", "sk"));

        assertTrue(catalog.configured());
        assertTrue(catalog.warnings().get(0).contains("not valid JSON"), catalog.warnings().toString());
    }

    @Test
    void unknownProviderExceptionNamesTheId() {
        UnknownProviderException e = assertThrows(UnknownProviderException.class,
                () -> catalog(Map.of("OPENAI_API_KEY", "sk")).resolve("nope"));

        assertEquals("cannot resolve provider 'nope'", e.getMessage());
        assertEquals("nope", e.providerId());
    }

    @Test
    void valuesSplitOnTheFirstSlash() {
        ModelCatalog catalog = catalog(Map.of("LLM_PROVIDER", "OPENROUTER", "OPENROUTER_API_KEY", "sk",
                "OPENROUTER_MODEL", "anthropic/claude-sonnet-4"));

        ModelChoice choice = catalog.defaultChoice().orElseThrow();
        assertEquals("openrouter", choice.providerId());
        assertEquals("anthropic/claude-sonnet-4", choice.model());
        assertEquals(choice, catalog.find("OpenRouter/anthropic/claude-sonnet-4").orElseThrow());
        assertEquals("qwen/qwen3-coder", catalog.find("openrouter/qwen/qwen3-coder").orElseThrow().model());
        assertTrue(catalog.find("elsewhere/model").isEmpty());
        assertTrue(catalog.find("no-slash").isEmpty());
    }

    @Test
    void temperatureAndMaxTokensComeFromTheEnvironment() {
        ModelCatalog catalog = catalog(Map.of("OPENAI_API_KEY", "sk", "LLM_TEMPERATURE", "0.2", "LLM_MAX_TOKENS", "4096"));
        assertEquals(0.2, catalog.defaultOptions().temperature());
        assertEquals(4096, catalog.defaultOptions().maxTokens());

        ModelCatalog invalid = catalog(Map.of("OPENAI_API_KEY", "sk", "LLM_TEMPERATURE", "warm"));
        assertNull(invalid.defaultOptions().temperature());
        assertTrue(invalid.warnings().contains("LLM_TEMPERATURE is not a valid number; it was ignored."));
    }

    @Test
    void knownContextWindows() {
        assertEquals(200_000, KnownModels.contextWindow("claude-sonnet-4-6"));
        assertEquals(1_047_576, KnownModels.contextWindow("gpt-4.1-mini"));
        assertEquals(128_000, KnownModels.contextWindow("deepseek-chat"));
        assertEquals(KnownModels.DEFAULT_CONTEXT_WINDOW, KnownModels.contextWindow("some-new-model"));
    }

    @Test
    void whichModelsTakeImagesIsKnownOrSaidInConfigJson() throws Exception {
        configJson("""
                {"providers": {"local": {"kind": "openai", "apiKey": "k", "baseUrl": "http://localhost:1/v1",
                   "models": [{"id": "my-vlm", "images": true}, {"id": "gpt-4o", "images": false},
                              {"id": "odd", "images": "yes"}, "deepseek-chat", "gpt-4.1-mini"]}},
                 "default": "local/my-vlm"}
                """);

        ModelCatalog catalog = catalog(Map.of());

        assertTrue(catalog.acceptsImages(catalog.find("local/my-vlm").orElseThrow()), "config.json says so");
        assertFalse(catalog.acceptsImages(catalog.find("local/gpt-4o").orElseThrow()), "config.json turns them off");
        assertFalse(catalog.acceptsImages(catalog.find("local/deepseek-chat").orElseThrow()), "known to take none");
        assertTrue(catalog.acceptsImages(catalog.find("local/gpt-4.1-mini").orElseThrow()), "known to take them");
        assertFalse(catalog.acceptsImages(catalog.find("local/odd").orElseThrow()), "unknown, and no valid flag");
        assertTrue(catalog.warnings().stream().anyMatch(w -> w.contains("\"images\" of model 'odd' must be true or false")),
                catalog.warnings().toString());
        assertTrue(KnownModels.acceptsImages("claude-sonnet-4-6") && KnownModels.acceptsImages("qwen2.5vl:7b")
                && KnownModels.acceptsImages("llama3.2-vision") && !KnownModels.acceptsImages("o3-mini")
                && !KnownModels.acceptsImages("qwen3"));
    }
}
