package cn.agentao.agent.cli;

import cn.agentao.agent.util.BuildVersion;
import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest ("dev" when run from classes). */
public final class Version implements IVersionProvider {
    public static String current() {
        return BuildVersion.current();
    }

    /** What {@code agent --version} prints. */
    static String[] lines() {
        return new String[]{"agent " + current(), "Java " + Runtime.version()};
    }

    @Override
    public String[] getVersion() {
        return lines();
    }
}
