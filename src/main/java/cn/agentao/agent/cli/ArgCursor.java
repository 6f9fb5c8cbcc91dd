package cn.agentao.agent.cli;

/**
 * Walks a command line for the hand-written fast parsers ({@link AcpLaunch#parse}, {@link TerminalLaunch#parse}):
 * {@code --name value}, {@code --name=value}, flags and short options.
 */
final class ArgCursor {
    private final String[] args;
    private int i = -1;
    private String name;
    private String inline;

    ArgCursor(String[] args) {
        this.args = args;
    }

    /** Moves to the next argument; false at the end. */
    boolean next() {
        if (++i >= args.length) return false;
        String a = args[i];
        int eq = a.indexOf('=');
        boolean split = a.startsWith("--") && eq > 0;
        name = split ? a.substring(0, eq) : a;
        inline = split ? a.substring(eq + 1) : null;
        return true;
    }

    /** The option's name (the argument itself, or its part before '=' for {@code --name=value}). */
    String name() { return name; }

    /** Whether a value came with '=' (a flag given one is not a flag). */
    boolean hasInlineValue() { return inline != null; }

    /** The option's value: after '=', else the next argument (taken); null when there is none. */
    String value() {
        if (inline != null) return inline;
        return i + 1 < args.length ? args[++i] : null;
    }

    /** An optional value ({@code --resume [ID]}): after '=', else the next argument unless it is an option; "" when none. */
    String optionalValue() {
        if (inline != null) return inline;
        return i + 1 < args.length && !args[i + 1].startsWith("-") ? args[++i] : "";
    }
}
