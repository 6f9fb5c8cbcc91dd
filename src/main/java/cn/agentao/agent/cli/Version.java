package cn.agentao.agent.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest ("dev" when run from classes). */
public final class Version implements IVersionProvider {
    public static String current() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[]{"agent " + current(), "Java " + Runtime.version()};
    }
}
