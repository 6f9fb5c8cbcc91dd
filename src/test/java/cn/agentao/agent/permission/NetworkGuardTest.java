package cn.agentao.agent.permission;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NetworkGuardTest {

    private static final NetworkGuard.HostResolver NO_DNS = host -> {
        throw new UnknownHostException(host);
    };

    @Test
    void privateNetworkSwitchOpensLoopbackButNeverMetadata() throws Exception {
        NetworkGuard open = new NetworkGuard(host -> List.of(InetAddress.getByName("127.0.0.1")), true);
        assertTrue(open.refusal("http://127.0.0.1:8080/").isEmpty());
        assertTrue(open.refusal("http://localhost/").isEmpty());
        assertTrue(open.refusal("http://10.0.0.1/").isEmpty());
        assertTrue(open.refusal("http://169.254.169.254/").isPresent());
        assertTrue(open.refusal("http://metadata.google.internal/").isPresent());
        assertTrue(open.refusal("http://[fd00:ec2::254]/").isPresent());
        assertTrue(open.refusal("http://0.0.0.0/").isPresent());
        assertTrue(open.refusal("gopher://127.0.0.1/").isPresent());
    }

    @Test
    void publicLiteralsPassWithoutDns() {
        NetworkGuard guard = new NetworkGuard(NO_DNS, false);
        assertTrue(guard.refusal("https://93.184.215.14/").isEmpty());
        assertTrue(guard.refusal("https://[2606:2800:220:1::1]/").isEmpty());
        assertTrue(guard.refusal("https://172.32.0.1/").isEmpty()); // just outside 172.16/12
        assertTrue(guard.refusal("https://100.128.0.1/").isEmpty()); // just outside 100.64/10
    }

    @Test
    void refusesSneakyForms() {
        NetworkGuard guard = new NetworkGuard(NO_DNS, false);
        for (String url : List.of("http://[::127.0.0.1]/", "http://[2002:7f00:1::]/", "http://[fe80::1%25eth0]/",
                "http://017700000001/", "http://0x7f.0.0.1/", "http://127.000.000.001/", "http://a.localhost/",
                "http://LOCALHOST./", "http://[::ffff:169.254.169.254]/", "http://224.0.0.1/", "http:///x",
                "http://127.0.0.1\\@example.com/", "http://[::1/")) {
            assertTrue(guard.refusal(url).isPresent(), url);
        }
    }

    @Test
    void parsesInetAtonSpellings() {
        byte[] loopback = {127, 0, 0, 1};
        assertArrayEquals(loopback, NetworkGuard.parseLegacyIpv4("2130706433"));
        assertArrayEquals(loopback, NetworkGuard.parseLegacyIpv4("0x7f000001"));
        assertArrayEquals(loopback, NetworkGuard.parseLegacyIpv4("0177.0.0.1"));
        assertArrayEquals(loopback, NetworkGuard.parseLegacyIpv4("127.1"));
        assertArrayEquals(loopback, NetworkGuard.parseLegacyIpv4("127.0.1"));
        assertNull(NetworkGuard.parseLegacyIpv4("256.0.0.1"));
        assertNull(NetworkGuard.parseLegacyIpv4("1.2.3.4.5"));
        assertNull(NetworkGuard.parseLegacyIpv4("08.0.0.1"));
        assertNull(NetworkGuard.parseLegacyIpv4("4294967296"));
    }
}
