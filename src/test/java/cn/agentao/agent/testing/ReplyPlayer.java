package cn.agentao.agent.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Plays a reply {@link Script} through a wire's {@link StreamEmitter}: timing, tool-call splitting, drops, hangs. */
final class ReplyPlayer {

    /** Thrown out of the HTTP handler so the server closes the socket without ending the response. */
    static final class DropConnection extends RuntimeException {
        DropConnection() {
            super("fake model server: dropping the connection as scripted", null, false, false);
        }
    }

    private ReplyPlayer() {}

    static void stream(Script script, StreamEmitter emitter, SseOutput out, int estimatedInputTokens)
            throws IOException, InterruptedException {
        Script.Usage usage = script.usage();
        emitter.begin(usage != null ? usage.input() : estimatedInputTokens);
        long delay = 0;
        int toolIndex = 0;
        int outputChunks = 0;
        for (Script.Step step : script.steps()) {
            switch (step) {
                case Script.Text text -> {
                    for (String chunk : text.chunks()) {
                        out.idle(delay);
                        emitter.text(chunk);
                        outputChunks++;
                    }
                }
                case Script.Reasoning reasoning -> {
                    for (String chunk : reasoning.chunks()) {
                        out.idle(delay);
                        emitter.reasoning(chunk);
                        outputChunks++;
                    }
                }
                case Script.ToolCall call -> {
                    out.idle(delay);
                    emitter.toolCallBegin(toolIndex, call.id(), call.name());
                    for (String piece : split(call.arguments(), call.pieces())) {
                        out.idle(delay);
                        emitter.toolCallArguments(toolIndex, piece);
                        outputChunks++;
                    }
                    toolIndex++;
                }
                case Script.Delay d -> delay = d.millis();
                case Script.Pause pause -> out.idle(pause.millis());
                case Script.Drop drop -> throw new DropConnection();
                case Script.Hang hang -> out.idleForever();
                case Script.Truncate truncate -> {
                    return;
                }
                case Script.Raw raw -> {
                    out.idle(delay);
                    out.write(raw.text());
                }
                case Script.StreamError error -> {
                    emitter.error(error.type(), error.message());
                    return;
                }
                case Script.Finish finish -> {}
                case Script.Usage u -> {}
                case Script.WebSearch search -> {} // answered in complete (non-streamed) replies only
            }
        }
        emitter.end(script.finishReason(), usage != null ? usage.input() : estimatedInputTokens,
                usage != null ? usage.output() : outputChunks, usage != null ? usage.cachedInput() : 0);
    }

    /** Honours the timing steps of a non-streamed reply before its body is written. */
    static void waitBeforeCompleteAnswer(Script script, SseOutput out) throws IOException, InterruptedException {
        for (Script.Step step : script.steps()) {
            switch (step) {
                case Script.Pause pause -> out.idle(pause.millis());
                case Script.Drop drop -> throw new DropConnection();
                case Script.Hang hang -> out.idleForever();
                case Script.Truncate truncate -> throw new DropConnection();
                default -> {}
            }
        }
    }

    /** {@code text} in {@code pieces} nearly equal parts, never splitting a character. */
    static List<String> split(String text, int pieces) {
        int[] codePoints = text.codePoints().toArray();
        int count = Math.max(1, Math.min(pieces, codePoints.length));
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int from = codePoints.length * i / count;
            int to = codePoints.length * (i + 1) / count;
            out.add(new String(codePoints, from, to - from));
        }
        return out;
    }
}
