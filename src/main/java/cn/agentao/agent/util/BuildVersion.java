package cn.agentao.agent.util;

/** This build's version, from the jar manifest ("dev" when run from classes); any layer may name it. */
public final class BuildVersion {
    private BuildVersion() {}

    public static String current() {
        String v = BuildVersion.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
