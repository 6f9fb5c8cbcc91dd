package cn.agentao.agent.util;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class SecretMaskTest {
    @Test
    void replacesEverySecretAtLeastTheMinimumLong() {
        assertEquals("key *** and *** again ***",
                SecretMask.mask("key s3cr3t-value and tok123 again s3cr3t-value", List.of("s3cr3t-value", "tok123"), 4));
    }

    @Test
    void leavesShorterNullAndEmptySecretsAlone() {
        assertEquals("true 1 abc", SecretMask.mask("true 1 abc", Arrays.asList("true", "1", "", null), 5));
    }

    @Test
    void nullAndEmptyTextStayAsTheyAre() {
        assertNull(SecretMask.mask(null, List.of("secret-value"), 1));
        assertEquals("", SecretMask.mask("", List.of("secret-value"), 1));
    }
}
