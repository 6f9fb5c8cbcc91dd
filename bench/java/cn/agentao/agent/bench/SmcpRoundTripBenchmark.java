package cn.agentao.agent.bench;

import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.connect.mcp.McpServerDefinition;
import cn.agentao.agent.connect.mcp.McpServerSet;
import cn.agentao.agent.connect.mcp.McpToolResult;
import cn.agentao.agent.connect.smcp.SmcpConfig;
import cn.agentao.agent.connect.smcp.SmcpOffice;
import cn.agentao.agent.connect.smcp.SmcpTestOffice;
import cn.agentao.agent.connect.smcp.SmcpTool;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One tool call through an A2C-SMCP office (agent → Socket.IO server → Computer → the Computer's MCP stdio server)
 * against the same tool called directly over MCP stdio (agent → MCP server), in the same run: the {@code echo} tool
 * of {@code @modelcontextprotocol/server-everything}, hosted by a Computer of the test office
 * ({@code interop/smcp/office.mjs --mcp-computer}). Prints the medians and their ratio.
 * Run: bench/smcp.sh [rounds]   (needs node and the test packages: scripts/install-smcp-test-office.sh and
 * scripts/install-mcp-test-servers.sh)
 */
public final class SmcpRoundTripBenchmark {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        Path home = Path.of(System.getProperty("agent.home", System.getProperty("user.dir")));
        String everything = home.resolve("interop/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js").toString();
        String node = SmcpTestOffice.requireNode();
        JsonNode echo = Json.object().put("message", "round trip");

        McpServerSet direct = McpServerSet.start(List.of(McpServerDefinition.fromClient(new McpServerConfig("stdio", "everything", node,
                List.of(everything, "stdio"), List.of(), null, null))), home, McpServerSet.Listener.NONE);
        try (SmcpTestOffice server = SmcpTestOffice.start("--computers", "", "--mcp-computer", "mcp", "--mcp-server", everything);
             SmcpOffice office = new SmcpOffice(new SmcpConfig(URI.create(server.url()), "office-1", "bench", null, null,
                     null, Duration.ofSeconds(60)))) { // null: the version is negotiated (this office speaks 0.2.0)
            if (!direct.awaitReady(Duration.ofSeconds(60))) throw new IllegalStateException("server-everything did not start");
            office.start();
            if (!office.awaitSettled(Duration.ofSeconds(60))) throw new IllegalStateException("office: " + office.status());
            SmcpTool viaOffice = office.tool("smcp__mcp__echo").orElseThrow(() -> new IllegalStateException("no echo: " + office.status()));
            String directName = direct.tools().stream().filter(t -> t.name().endsWith("__echo")).findFirst().orElseThrow().name();

            // warm both paths up (JIT, connections), then alternate so load on the machine hits both alike
            for (int i = 0; i < 50; i++) {
                check(direct.callTool(directName, echo, Cancellation.NONE));
                check(office.call(viaOffice, echo, Cancellation.NONE));
            }
            List<Long> mcp = new ArrayList<>();
            List<Long> smcp = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                long t0 = System.nanoTime();
                check(direct.callTool(directName, echo, Cancellation.NONE));
                long t1 = System.nanoTime();
                check(office.call(viaOffice, echo, Cancellation.NONE));
                long t2 = System.nanoTime();
                mcp.add(t1 - t0);
                smcp.add(t2 - t1);
            }
            double m = median(mcp) / 1e6;
            double s = median(smcp) / 1e6;
            System.out.printf("tool call round trip, median of %d: direct MCP stdio %.3f ms, through the SMCP office %.3f ms (%.2fx)%n",
                    rounds, m, s, s / m);
        } finally {
            direct.close();
        }
    }

    private static void check(McpToolResult r) {
        if (r.isError() || !r.text().contains("round trip")) throw new IllegalStateException("bad result: " + r.text());
    }

    private static double median(List<Long> xs) {
        List<Long> sorted = new ArrayList<>(xs);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
