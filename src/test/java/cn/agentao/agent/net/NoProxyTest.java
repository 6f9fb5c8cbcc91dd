package cn.agentao.agent.net;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** NO_PROXY read as curl reads it (plus ports and CIDR ranges), never by resolving names. */
class NoProxyTest {

    @ParameterizedTest(name = "NO_PROXY=''{0}'' {1}:{2} → {3}")
    @CsvSource(delimiter = '|', value = {
            // names: the name itself and everything below it, not look-alikes
            "example.com | example.com | 443 | true",
            "example.com | www.example.com | 443 | true",
            "example.com | a.b.example.com | 80 | true",
            "example.com | notexample.com | 443 | false",
            "example.com | example.com.evil.net | 443 | false",
            ".example.com | example.com | 443 | true",
            ".example.com | www.example.com | 443 | true",
            "*.example.com | www.example.com | 443 | true",
            "EXAMPLE.com | Www.Example.COM. | 443 | true",
            "example.com. | www.example.com | 443 | true",
            // lists: commas, spaces, empty items
            "foo.org, example.com ,,bar.net | www.example.com | 443 | true",
            "foo.org bar.net | bar.net | 443 | true",
            "foo.org,bar.net | example.com | 443 | false",
            // everything
            "* | anything.example | 443 | true",
            "foo.org,* | anything.example | 443 | true",
            // IPv4 addresses and ranges match hosts written as addresses
            "10.1.2.3 | 10.1.2.3 | 80 | true",
            "10.1.2.3 | 10.1.2.4 | 80 | false",
            "10.0.0.0/8 | 10.200.3.4 | 80 | true",
            "10.0.0.0/8 | 11.0.0.1 | 80 | false",
            "192.168.0.0/16 | 192.168.77.1 | 80 | true",
            "0.0.0.0/0 | 8.8.8.8 | 80 | true",
            "10.0.0.0/8 | tenten.example | 80 | false",
            // IPv6, bare or bracketed in the list, bracketed in the URL
            "::1 | [::1] | 80 | true",
            "[2001:db8::1] | [2001:db8::1] | 80 | true",
            "2001:db8::/32 | [2001:db8:ffff::5] | 80 | true",
            "2001:db8::/32 | [2001:db9::5] | 80 | false",
            // ports
            "example.com:8443 | example.com | 8443 | true",
            "example.com:8443 | example.com | 443 | false",
            "10.0.0.1:8080 | 10.0.0.1 | 8080 | true",
            "10.0.0.1:8080 | 10.0.0.1 | 80 | false",
            "[::1]:8080 | [::1] | 8080 | true",
            "[::1]:8080 | [::1] | 9090 | false",
            // nonsense entries are skipped, never match everything
            "1.1.1 | 1.1.1.1 | 80 | false",
            "10.0.0.0/99 | 10.0.0.1 | 80 | false",
            "example.com:notaport | example.com | 80 | false",
            ". | example.com | 80 | false",
    })
    void matchesLikeCurl(String list, String host, int port, boolean direct) {
        assertEquals(direct, NoProxy.parse(list).matches(host, port));
    }

    @ParameterizedTest(name = "empty NO_PROXY ''{0}'' excludes nothing")
    @CsvSource(value = {"''", "' '", "','"})
    void emptyListExcludesNothing(String list) {
        assertEquals(false, NoProxy.parse(list).matches("example.com", 443));
    }
}
