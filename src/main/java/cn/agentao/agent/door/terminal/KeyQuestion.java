package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.InertText;
import org.jline.terminal.Attributes;
import org.jline.terminal.Terminal;
import org.jline.utils.NonBlockingReader;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A permission question answered with one key: {@code y} allow once, {@code a} always allow, {@code n} reject,
 * {@code r} always reject (each when offered); Esc or Ctrl-C rejects and cancels the turn. The title (a command, a
 * path) is shown with every character it holds ({@link InertText#forApproval}): what is approved is what runs.
 */
final class KeyQuestion {
    private static final Map<Character, ApprovalOption.Kind> KINDS = Map.of('y', ApprovalOption.Kind.ALLOW_ONCE,
            'a', ApprovalOption.Kind.ALLOW_ALWAYS, 'n', ApprovalOption.Kind.REJECT_ONCE, 'r', ApprovalOption.Kind.REJECT_ALWAYS);
    private static final int ESC = 27, CTRL_C = 3, CTRL_D = 4;

    private final Terminal terminal;
    private final Ansi ansi;
    private final Consumer<String> out;

    KeyQuestion(Terminal terminal, Ansi ansi, Consumer<String> out) {
        this.terminal = terminal;
        this.ansi = ansi;
        this.out = out;
    }

    /** Returns the chosen option's id, or null (rejected and the turn cancelled). */
    String ask(String title, List<ApprovalOption> options, Cancellation cancel) {
        StringBuilder menu = new StringBuilder(ansi.yellow("? ") + ansi.bold(InertText.forApproval(title)) + "\n  ");
        for (char key : new char[]{'y', 'a', 'n', 'r'}) {
            ApprovalOption o = byKind(options, KINDS.get(key));
            if (o != null) menu.append(ansi.bold(ansi.cyan("[" + key + "]"))).append(' ').append(InertText.forTerminal(o.name())).append("  ");
        }
        menu.append(ansi.dim("[Esc] cancel"));
        out.accept(menu + "\n");
        Attributes saved = terminal.enterRawMode();
        try {
            NonBlockingReader in = terminal.reader();
            while (!cancel.isCancelled()) {
                int c = in.read(100);
                if (c == NonBlockingReader.READ_EXPIRED) continue;
                if (c < 0 || c == CTRL_C || c == CTRL_D) return answered(null, "cancelled");
                if (c == ESC) {
                    if (in.peek(50) >= 0) { // an escape sequence (an arrow key): not an answer
                        while (in.peek(10) >= 0) in.read();
                        continue;
                    }
                    return answered(null, "cancelled");
                }
                ApprovalOption o = byKind(options, KINDS.get(Character.toLowerCase((char) c)));
                if (o != null) return answered(o.optionId(), o.name());
            }
            return answered(null, "cancelled");
        } catch (IOException e) {
            return answered(null, "cancelled");
        } finally {
            terminal.setAttributes(saved);
        }
    }

    private String answered(String id, String what) {
        out.accept(ansi.dim("  → " + what) + "\n");
        return id;
    }

    private static ApprovalOption byKind(List<ApprovalOption> options, ApprovalOption.Kind kind) {
        return options.stream().filter(o -> o.kind() == kind).findFirst().orElse(null);
    }
}
