package cn.agentao.agent.model;

/**
 * Everything needed to talk to one provider. {@code apiKeyOrigin} names where the key came from
 * (e.g. {@code OPENAI_API_KEY (from the environment)}) for error messages; the key itself never appears in
 * {@link #toString()}.
 */
public record ResolvedProvider(String id, ProviderKind kind, String baseUrl, String apiKey, String apiKeyOrigin) {

    @Override
    public String toString() {
        return "ResolvedProvider[id=" + id + ", kind=" + kind + ", baseUrl=" + baseUrl
                + ", apiKey=" + (apiKey == null ? "none" : "***") + ", apiKeyOrigin=" + apiKeyOrigin + "]";
    }
}
