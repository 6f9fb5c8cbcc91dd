package cn.agentao.agent.cli;

import cn.agentao.agent.util.BuildVersion;
import picocli.CommandLine.IVersionProvider;

/** Picocli's version provider: what {@code agent --version} prints ({@link BuildVersion} is the version itself). */
public final class Version implements IVersionProvider {
    /** What {@code agent --version} prints. */
    static String[] lines() {
        return new String[]{"agent " + BuildVersion.current(), "Java " + Runtime.version()};
    }

    @Override
    public String[] getVersion() {
        return lines();
    }
}
