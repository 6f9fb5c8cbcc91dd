package cn.agentao.agent.permission;

import java.util.Objects;

/**
 * What the permission engine decided about one request.
 *
 * @param verdict      allow, ask or deny
 * @param reason       a short sentence for the user (in the permission prompt) and the model (on a denial)
 * @param rememberable for {@link Verdict#ASK}: whether an {@code allow_always} answer would be honoured by
 *                     {@link PermissionMemory}. False when the question is about a boundary (a path outside
 *                     the workspace, a user "ask" rule): such questions are asked every time, so the client
 *                     should only be offered the {@code *_once} options plus {@code reject_always}.
 */
public record Decision(Verdict verdict, String reason, boolean rememberable) {

    public Decision {
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(reason, "reason");
    }

    public Decision(Verdict verdict, String reason) {
        this(verdict, reason, false);
    }

    public static Decision allow(String reason) { return new Decision(Verdict.ALLOW, reason, false); }

    public static Decision deny(String reason) { return new Decision(Verdict.DENY, reason, false); }

    /** A question the user may answer once and for all. */
    public static Decision ask(String reason) { return new Decision(Verdict.ASK, reason, true); }

    /** A question asked every time, whatever was answered before. */
    public static Decision askEveryTime(String reason) { return new Decision(Verdict.ASK, reason, false); }
}
