package cn.agentao.agent.cli;

/** Entry point (placeholder until the ACP front door lands). */
public final class Main {
    public static void main(String[] args) {
        System.exit(0);
    }
}
