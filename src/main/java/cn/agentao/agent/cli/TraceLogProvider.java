package cn.agentao.agent.cli;

import cn.agentao.agent.util.TraceContext;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.simple.SimpleLogger;
import org.slf4j.simple.SimpleServiceProvider;

import java.util.TimeZone;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * slf4j-simple whose lines name the W3C {@code traceparent} of the request being served
 * ({@link TraceContext}): {@code [traceparent 00-…-…-01] message}. slf4j-simple has no MDC to do it with.
 */
public final class TraceLogProvider extends SimpleServiceProvider {
    private final ILoggerFactory factory = new Factory();

    @Override
    public ILoggerFactory getLoggerFactory() {
        return factory;
    }

    private static final class Factory implements ILoggerFactory {
        private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();

        @Override
        public Logger getLogger(String name) {
            return loggers.computeIfAbsent(name, TracingLogger::new);
        }
    }

    private static final class TracingLogger extends SimpleLogger {
        TracingLogger(String name) {
            super(name);
        }

        /** {@code HH:mm:ss.SSS [LEVEL]}: the local time of day, formatted without java.text (see {@link Logging}). */
        @Override
        protected String renderLevel(int level) {
            long now = System.currentTimeMillis();
            long ms = Math.floorMod(now + TimeZone.getDefault().getOffset(now), 86_400_000L);
            StringBuilder b = new StringBuilder(24);
            two(b, ms / 3_600_000).append(':');
            two(b, ms / 60_000 % 60).append(':');
            two(b, ms / 1000 % 60).append('.');
            long milli = ms % 1000;
            if (milli < 100) b.append('0');
            two(b, milli);
            return b.append(" [").append(super.renderLevel(level)).append(']').toString();
        }

        private static StringBuilder two(StringBuilder b, long n) {
            return b.append(n < 10 ? "0" : "").append(n);
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String message, Object[] arguments, Throwable throwable) {
            String traceparent = TraceContext.current();
            super.handleNormalizedLoggingCall(level, marker, traceparent == null ? message : "[traceparent " + traceparent + "] " + message,
                    arguments, throwable);
        }
    }
}
