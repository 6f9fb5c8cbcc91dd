package cn.agentao.agent.cli;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;

/**
 * Questions asked on the terminal: through the JDK's own console when stdin and stdout are a terminal (a secret is
 * then read without echo), else line by line from stdin (scripts: {@code printf '1\nsk-…\n\n\n' | agent login}).
 */
abstract class TerminalInput {
    /** Input ended (Ctrl-D, or the end of a piped stdin) before an answer. */
    static final class EndOfInput extends RuntimeException {
        EndOfInput() { super(null, null, false, false); }
    }

    abstract String line(String prompt);

    abstract String secret(String prompt);

    static TerminalInput open(PrintWriter out) {
        // The JDK's built-in console exists only for a real terminal (JLine's, the default since JDK 22, would
        // claim a console for a pipe too, and echo a secret typed there).
        System.setProperty("jdk.console", "java.base");
        Console console = System.console();
        return console != null ? new OnConsole(console) : new OnStdin(out);
    }

    private static final class OnConsole extends TerminalInput {
        private final Console console;

        OnConsole(Console console) { this.console = console; }

        @Override String line(String prompt) {
            String s = console.readLine("%s", prompt);
            if (s == null) throw new EndOfInput();
            return s;
        }

        @Override String secret(String prompt) {
            char[] s = console.readPassword("%s", prompt);
            if (s == null) throw new EndOfInput();
            return new String(s);
        }
    }

    private static final class OnStdin extends TerminalInput {
        private final PrintWriter out;
        private final BufferedReader reader = new BufferedReader(new InputStreamReader(System.in, Charset.defaultCharset()));

        OnStdin(PrintWriter out) { this.out = out; }

        @Override String line(String prompt) {
            out.print(prompt);
            out.flush();
            try {
                String s = reader.readLine();
                if (s == null) throw new EndOfInput();
                return s;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override String secret(String prompt) {
            String s = line(prompt);
            out.println();
            return s;
        }
    }
}
