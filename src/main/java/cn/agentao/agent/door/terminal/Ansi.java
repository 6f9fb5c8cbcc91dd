package cn.agentao.agent.door.terminal;

/** The few ANSI styles the terminal door uses; {@link #plain} ones produce no escape codes at all. */
record Ansi(boolean colour) {
    static final Ansi PLAIN = new Ansi(false);

    /**
     * Colour unless {@code NO_COLOR} is set (any value, https://no-color.org), the terminal is dumb or unknown, or
     * the output is not a terminal.
     */
    static Ansi forTerminal(cn.agentao.agent.config.AgentConfig.Terminal settings, String terminalType, boolean tty) {
        boolean off = settings.noColor() || !tty || terminalType == null
                || terminalType.equals("dumb") || terminalType.startsWith("dumb-");
        return new Ansi(!off);
    }

    private String wrap(String code, String text) { return colour ? "\u001b[" + code + "m" + text + "\u001b[0m" : text; }

    String bold(String t) { return wrap("1", t); }
    String dim(String t) { return wrap("2", t); }
    String italic(String t) { return wrap("3", t); }
    String underline(String t) { return wrap("4", t); }
    String red(String t) { return wrap("31", t); }
    String green(String t) { return wrap("32", t); }
    String yellow(String t) { return wrap("33", t); }
    String blue(String t) { return wrap("34", t); }
    String magenta(String t) { return wrap("35", t); }
    String cyan(String t) { return wrap("36", t); }
}
