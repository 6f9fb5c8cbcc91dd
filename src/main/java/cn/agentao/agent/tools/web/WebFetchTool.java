package cn.agentao.agent.tools.web;

import cn.agentao.agent.core.tool.TextFiles;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;

import cn.agentao.agent.net.Network;
import cn.agentao.agent.net.NetworkFailures;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code web_fetch}: GET an http(s) URL and return its text (HTML converted to text). Every hop is checked by
 * the {@link NetworkGuard}: redirects are followed by hand (at most {@value #MAX_REDIRECTS}) so a public URL
 * cannot bounce to a private address. The body is cut at {@value #MAX_BODY_BYTES} bytes, the text at
 * {@value #MAX_CHARS} characters, with a notice.
 */
public final class WebFetchTool implements Tool {
    public static final String NAME = "web_fetch";
    static final int MAX_REDIRECTS = 5;
    static final int MAX_BODY_BYTES = 2 << 20;
    static final int MAX_CHARS = 100_000;

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "url":{"type":"string","description":"The http or https URL to fetch."}
            },"required":["url"],"additionalProperties":false}""");

    private final NetworkGuard guard;

    public WebFetchTool(NetworkGuard guard) {
        this.guard = guard;
    }

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Fetch a web page or text document over http(s) and return its text (HTML converted to readable "
                + "text with links). Only public internet addresses; at most 100000 characters.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.FETCH; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        String url = ToolArgs.string(args, "url").strip();
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new ToolException(NAME + ": not a valid URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new ToolException(NAME + ": only http and https URLs can be fetched");
        }
        return new Invocation(ctx, url, uri);
    }

    private final class Invocation implements ToolInvocation {
        private final ToolContext ctx;
        private final String url;
        private final URI uri;

        Invocation(ToolContext ctx, String url, URI uri) {
            this.ctx = ctx;
            this.url = url;
            this.uri = uri;
        }

        @Override
        public String title() { return "Fetch " + url; }

        @Override
        public List<ToolCallLocation> locations() { return List.of(); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.FetchUrl(NAME, url); }

        @Override
        public ToolResult run(ToolProgress progress) throws IOException, InterruptedException {
            URI current = uri;
            for (int hop = 0; ; hop++) {
                Optional<String> refused = guard.refusal(current);
                if (refused.isPresent()) {
                    return ToolResult.error("Refused to fetch " + current + (hop > 0 ? " (redirected from " + url + ")" : "")
                            + ": " + refused.get() + ".");
                }
                HttpResponse<InputStream> response = send(current);
                int status = response.statusCode();
                if (status == 407) { // from the proxy; without a body when it answered a CONNECT
                    if (response.body() != null) response.body().close();
                    return ToolResult.error("Cannot fetch " + current + Network.get().via(current) + ": "
                            + NetworkFailures.proxyAuthenticationRequired() + ".");
                }
                if (status >= 300 && status < 400 && status != 304) {
                    response.body().close();
                    Optional<String> location = response.headers().firstValue("location");
                    if (location.isEmpty()) return ToolResult.error("HTTP " + status + " from " + current + " without a Location.");
                    if (hop >= MAX_REDIRECTS) return ToolResult.error("Too many redirects (more than " + MAX_REDIRECTS + ") from " + url + ".");
                    try {
                        current = current.resolve(new URI(location.get().strip().replace(" ", "%20")));
                    } catch (URISyntaxException | IllegalArgumentException e) {
                        return ToolResult.error("Bad redirect from " + current + ": " + location.get());
                    }
                    continue;
                }
                return read(current, response);
            }
        }

        private HttpResponse<InputStream> send(URI target) throws IOException, InterruptedException {
            return WebHttp.send(WebHttp.get(target)
                    .header("User-Agent", "agent/0.1 (+https://agentclientprotocol.com) web_fetch")
                    .header("Accept", "text/html,application/xhtml+xml,text/plain,text/markdown,application/json;q=0.9,*/*;q=0.5"),
                    target, ctx);
        }

        private ToolResult read(URI from, HttpResponse<InputStream> response) throws IOException, InterruptedException {
            WebHttp.Body read = WebHttp.read(response.body(), MAX_BODY_BYTES, ctx);
            byte[] body = read.bytes();
            boolean cut = read.cut();
            String contentType = response.headers().firstValue("content-type").orElse("").toLowerCase(Locale.ROOT);
            String mime = contentType.split(";")[0].strip();
            String text = new String(body, charset(contentType));
            if (TextFiles.looksBinary(text) || mime.matches("(image|audio|video|font)/.*|application/(pdf|zip|gzip|octet-stream)")) {
                return ToolResult.error("Not text: " + from + " returned " + (mime.isEmpty() ? "binary data" : mime)
                        + " (" + body.length + " bytes).");
            }
            boolean html = mime.contains("html") || (mime.isEmpty() && text.stripLeading().regionMatches(true, 0, "<!doctype html", 0, 14));
            if (html) text = HtmlToText.convert(text, from);
            if (text.length() > MAX_CHARS) {
                text = text.substring(0, MAX_CHARS);
                cut = true;
            }
            int status = response.statusCode();
            StringBuilder out = new StringBuilder();
            out.append("URL: ").append(from).append('\n');
            out.append("Status: ").append(status).append('\n');
            if (!mime.isEmpty()) out.append("Content-Type: ").append(mime).append('\n');
            out.append('\n').append(text);
            if (cut) out.append("\n[Content cut: only the first part of the page is shown.]\n");
            boolean failed = status >= 400;
            ObjectNode raw = Json.object().put("url", from.toString()).put("status", status)
                    .put("contentType", mime).put("truncated", cut);
            String summary = "HTTP " + status + " " + from + " (" + body.length + " bytes" + (cut ? ", cut" : "") + ")";
            return new ToolResult(out.toString(), List.of(ToolCallContent.text(summary)), failed, raw);
        }
    }

    private static Charset charset(String contentType) {
        for (String part : contentType.split(";")) {
            String p = part.strip();
            if (p.startsWith("charset=")) {
                try {
                    return Charset.forName(p.substring(8).replace("\"", "").strip());
                } catch (IllegalArgumentException e) {
                    return StandardCharsets.UTF_8;
                }
            }
        }
        return StandardCharsets.UTF_8;
    }
}
