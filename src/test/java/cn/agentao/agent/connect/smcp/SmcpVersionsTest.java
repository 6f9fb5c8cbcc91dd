package cn.agentao.agent.connect.smcp;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;

/** Which protocol version the agent falls back to after a 4008 refusal (what the refusal says the server accepts). */
class SmcpVersionsTest {
    @Test
    void aServerOf02WithoutARangeIsReachedByItsServerVersion() {
        assertEquals(Optional.of("0.2.0"), SmcpVersions.accepted("0.3.0", "0.2.0", null, null));
        assertEquals(Optional.of("0.2.0"), SmcpVersions.accepted("0.3.0", "0.2.3", null, null), "0.x: MAJOR.MINOR must match");
    }

    @Test
    void theRangeOfTheRefusalIsRead() {
        assertEquals(Optional.of("0.2.0"), SmcpVersions.accepted("0.3.0", "0.2.3", "0.2.0", "0.2.999"));
        assertEquals(Optional.of("0.3.0"), SmcpVersions.accepted("0.2.0", "0.3.1", "0.3.0", "0.3.999"), "and newer when forced lower");
    }

    @Test
    void nothingTheAgentSpeaksIsNeverGuessed() {
        assertEquals(Optional.empty(), SmcpVersions.accepted("0.3.0", "1.0.0", "1.0.0", "1.0.999"));
        assertEquals(Optional.empty(), SmcpVersions.accepted("0.3.0", "0.4.0", null, null));
        assertEquals(Optional.empty(), SmcpVersions.accepted("0.3.0", null, null, null), "a refusal that names no version");
        assertEquals(Optional.empty(), SmcpVersions.accepted("0.3.0", "0.3.0", "0.3.0", "0.3.999"), "the refused one is not offered again");
    }

    @Test
    void whatChangedIn03IsKnownByVersion() {
        assertTrue(SmcpVersions.isV03("0.3.0"));
        assertTrue(SmcpVersions.isV03("1.0.0"));
        assertFalse(SmcpVersions.isV03("0.2.3"));
        assertEquals("0.3.0", SmcpConfig.DEFAULT_VERSION);
    }
}
