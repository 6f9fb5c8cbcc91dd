package cn.agentao.agent.door.a2a;

import cn.agentao.agent.net.Network;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * POSTs a task to its push-notification webhooks whenever its state changes, in order per task. Webhook URLs
 * pass the same guard as {@code web_fetch} (no loopback, private or metadata addresses unless private network
 * access is enabled), when set and again before each POST; redirects are not followed.
 */
final class PushNotifier {
    private static final Logger log = LoggerFactory.getLogger(PushNotifier.class);
    static final String TOKEN_HEADER = "X-A2A-Notification-Token";
    /** Marks a stored config set over A2A 1.0: its webhook gets 1.0's {@code StreamResponse}, 0.3's the task. */
    static final String WIRE = "a2aVersion";

    private final NetworkGuard guard;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, CompletableFuture<Void>> chains = new ConcurrentHashMap<>();
    private volatile HttpClient http;

    PushNotifier(NetworkGuard guard) { this.guard = guard; }

    /** Why a webhook URL is refused, or empty. */
    Optional<String> refusal(String url) { return guard.refusal(url); }

    /** Posts the task's new state to each of its webhooks {@code configs}, in order per task. */
    void stateChanged(A2aTask task, Map<String, ObjectNode> configs) {
        if (configs.isEmpty()) return;
        ObjectNode snapshot = task.snapshot(0);
        String body = snapshot.toString();
        String v1Body = A2aV1Wire.streamResponse(snapshot).toString();
        chains.compute(task.id(), (k, prev) -> (prev == null ? CompletableFuture.<Void>completedFuture(null) : prev)
                .thenRunAsync(() -> configs.values().forEach(c -> post(task.id(), c, isV1(c) ? v1Body : body)), executor));
        if (task.isTerminal()) {
            CompletableFuture<Void> last = chains.get(task.id());
            if (last != null) last.whenComplete((v, e) -> chains.remove(task.id(), last));
        }
    }

    private static boolean isV1(JsonNode config) { return A2aV1Wire.VERSION.equals(config.path(WIRE).asText()); }

    private void post(String taskId, ObjectNode config, String body) {
        String url = config.path("url").asText();
        Optional<String> refused = guard.refusal(url);
        if (refused.isPresent()) {
            log.warn("push notification for task {} not sent: {}", taskId, refused.get());
            return;
        }
        try {
            HttpRequest.Builder rq = Network.get().authorize(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", isV1(config) ? "application/a2a+json" : "application/json").POST(HttpRequest.BodyPublishers.ofString(body)), URI.create(url));
            if (config.path("token").isTextual()) rq.header(TOKEN_HEADER, config.path("token").asText());
            JsonNode auth = config.path("authentication");
            if (auth.path("credentials").isTextual()) {
                for (JsonNode scheme : auth.path("schemes")) {
                    if ("bearer".equalsIgnoreCase(scheme.asText())) {
                        rq.header("Authorization", "Bearer " + auth.path("credentials").asText());
                        break;
                    }
                }
            }
            HttpResponse<Void> r = client().send(rq.build(), HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() >= 300) log.info("push notification for task {}: webhook answered HTTP {}", taskId, r.statusCode());
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            log.info("push notification for task {} failed: {}", taskId, e.getClass().getSimpleName());
        }
    }

    private HttpClient client() {
        HttpClient c = http;
        if (c == null) {
            synchronized (this) {
                // the user's proxy and CAs, as web_fetch has them (the guard has judged the address already)
                if (http == null) http = Network.get().configure(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                        .connectTimeout(Duration.ofSeconds(5)).executor(executor), true).build();
                c = http;
            }
        }
        return c;
    }

    /** The stored form of a config: its id, url, token and authentication only. */
    static ObjectNode normalize(JsonNode config, String id) {
        ObjectNode c = Json.object().put("id", id).put("url", config.path("url").asText());
        if (config.path("token").isTextual()) c.put("token", config.path("token").asText());
        if (config.path("authentication").isObject()) c.set("authentication", config.path("authentication").deepCopy());
        if (isV1(config)) c.put(WIRE, A2aV1Wire.VERSION);
        return c;
    }

    /** Lets the POSTs already queued (e.g. the {@code canceled} of a shutdown) go out, for at most two seconds. */
    void close() {
        executor.shutdown();
        try {
            executor.awaitTermination(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
