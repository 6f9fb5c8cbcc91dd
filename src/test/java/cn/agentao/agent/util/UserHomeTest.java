package cn.agentao.agent.util;

import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.store.SessionStore;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** One home for everything: configuration and the store follow {@code $HOME}, not the password database. */
class UserHomeTest {
    @Test
    void homeComesFromTheEnvironment() {
        assertEquals(Path.of("/tmp/elsewhere"), UserHome.from(Map.of("HOME", "/tmp/elsewhere")));
        assertEquals(Path.of("/tmp/elsewhere/.config/agent"), ConfigLocations.userConfigDir(Map.of("HOME", "/tmp/elsewhere")));
        assertEquals(Path.of("/tmp/elsewhere/.local/share/agent/sessions"),
                cn.agentao.agent.config.StoreSettings.defaultDirectory(Map.of("HOME", "/tmp/elsewhere")));
    }

    @Test
    void aRelativeOrBlankHomeFallsBackToTheJvmsHome() {
        Path jvm = Path.of(System.getProperty("user.home"));
        assertEquals(jvm, UserHome.from(Map.of("HOME", "relative/dir")));
        assertEquals(jvm, UserHome.from(Map.of("HOME", " ")));
        assertEquals(jvm, UserHome.from(Map.of()));
    }

    @Test
    void xdgConfigHomeStillWinsOverHome() {
        assertEquals(Path.of("/x/agent"), ConfigLocations.userConfigDir(Map.of("HOME", "/tmp/elsewhere", "XDG_CONFIG_HOME", "/x")));
    }
}
