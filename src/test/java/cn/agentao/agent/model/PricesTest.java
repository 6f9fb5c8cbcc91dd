package cn.agentao.agent.model;

import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.util.Json;
import dev.langchain4j.model.anthropic.AnthropicTokenUsage;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** config.json prices, the cost of a call, and token counts made comparable across providers. */
class PricesTest {
    static UserConfigFile config(String json) throws Exception {
        return UserConfigFile.parse(Json.mapper().readTree(json), "config.json");
    }

    @Test
    void pricesAreReadPerModelAndBadOnesNamed() throws Exception {
        UserConfigFile c = config("""
                {"prices": {"OpenAI/gpt-x": {"input": 2, "output": 8},
                            "bare": {"input": 1, "output": 2, "cachedInput": 0.1, "currency": "EUR"},
                            "broken": {"input": "two", "output": 8},
                            "negative": {"input": -1, "output": 8}}}
                """);
        assertEquals(new ModelPrice(2, 8, null, "USD"), c.prices().get("openai/gpt-x"), "provider lower-cased, USD by default");
        assertEquals(new ModelPrice(1, 2, 0.1, "EUR"), c.prices().get("bare"));
        assertFalse(c.prices().containsKey("broken") || c.prices().containsKey("negative"));
        assertEquals(2, c.problems().size(), c.problems().toString());
        assertTrue(c.problems().get(0).contains("'broken'"), c.problems().toString());
    }

    @Test
    void aCallCostsItsUncachedInputCachedInputAndOutput() {
        ModelPrice p = new ModelPrice(3, 15, 0.3, "USD");
        assertEquals((700 * 3 + 300 * 0.3 + 100 * 15) / 1e6, p.cost(new TokenCount(1000, 100, 1100, 300)), 1e-12);
        assertEquals((1000 * 3 + 100 * 15) / 1e6, new ModelPrice(3, 15, null, "USD").cost(new TokenCount(1000, 100, 1100, 300)), 1e-12,
                "no cached price: cached tokens cost the input price");
    }

    @Test
    void anthropicCacheTokensArePartOfTheInput() {
        TokenCount t = LangChainModelClient.tokenCount(AnthropicTokenUsage.builder().inputTokenCount(10).outputTokenCount(5)
                .cacheReadInputTokens(900).cacheCreationInputTokens(100).build());
        assertEquals(new TokenCount(1010, 5, 1015, 900), t);
    }

    @Test
    void catalogFindsAPriceByProviderModelThenBareModel() throws Exception {
        ModelCatalog catalog = ModelCatalog.from(new ConfigEnvironment(java.util.List.of()), config("""
                {"providers": {"p": {"kind": "openai", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k", "models": ["a", "b"]}},
                 "prices": {"p/a": {"input": 1, "output": 1}, "b": {"input": 5, "output": 5}}}
                """), ConfigLocations.standard(null, java.util.Map.of("HOME", "/nonexistent")));
        assertEquals(1, catalog.price(catalog.find("p/a").orElseThrow()).orElseThrow().input());
        assertEquals(5, catalog.price(catalog.find("p/b").orElseThrow()).orElseThrow().input());
        assertTrue(catalog.price(catalog.find("p/c").orElseThrow()).isEmpty());
    }
}
