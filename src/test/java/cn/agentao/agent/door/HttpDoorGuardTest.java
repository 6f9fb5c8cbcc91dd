package cn.agentao.agent.door;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which Host headers name a server, and which origins can be allowed (the HTTP side is in A2aDoorSecurityIT). */
class HttpDoorGuardTest {
    static HttpDoorGuard on(String address, int port, String... allowedHosts) throws Exception {
        return new HttpDoorGuard(new InetSocketAddress(InetAddress.getByName(address), port), List.of(allowedHosts), List.of());
    }

    @Test
    void onLoopbackTheLoopbackNamesWithThePort() throws Exception {
        HttpDoorGuard g = on("127.0.0.1", 8123);
        for (String ok : List.of("localhost:8123", "LocalHost:8123", "127.0.0.1:8123", "[::1]:8123", "[0:0:0:0:0:0:0:1]:8123")) {
            assertTrue(g.hostAccepted(ok), ok);
        }
        for (String no : List.of("evil.example:8123", "localhost:8124", "localhost", "127.0.0.2:8123", "localhost.:8123",
                "127.0.0.1.nip.io:8123", "localhost:8123:80", "localhost:x", ":8123", "[::1", "2130706433:8123", "127.1:8123")) {
            assertFalse(g.hostAccepted(no), no);
        }
        assertTrue(on("127.0.0.1", 80).hostAccepted("localhost"), "port 80 may be left out");
    }

    @Test
    void onAnotherAddressThatAddressOrAnAllowedName() throws Exception {
        HttpDoorGuard g = on("192.0.2.7", 9000, "agent.example.com", "Proxy.Example:8443");
        assertTrue(g.hostAccepted("192.0.2.7:9000"));
        assertFalse(g.hostAccepted("localhost:9000"), "bound elsewhere: loopback names are not its own");
        assertTrue(g.hostAccepted("agent.example.com"));
        assertTrue(g.hostAccepted("AGENT.example.com:443"), "a name without a port: any port");
        assertTrue(g.hostAccepted("proxy.example:8443"));
        assertFalse(g.hostAccepted("proxy.example:8444"), "a name with a port: that port");
        assertFalse(g.hostAccepted("evil.agent.example.com"));
        assertThrows(IllegalArgumentException.class, () -> on("127.0.0.1", 1, "http://agent.example.com/"));
    }

    @Test
    void originsAreComparedAsBrowsersWriteThem() {
        assertEquals("http://localhost:3000", HttpDoorGuard.origin("HTTP://LocalHost:3000"));
        assertEquals("https://app.example", HttpDoorGuard.origin("https://app.example:443"));
        for (String no : List.of("null", "*", "http://a.example/path", "file:///x", "http://user@a.example", "a.example")) {
            assertNull(HttpDoorGuard.origin(no), no);
        }
        assertThrows(IllegalArgumentException.class, () -> new HttpDoorGuard(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                List.of(), List.of("*")));
    }
}
