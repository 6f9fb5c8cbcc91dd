package cn.agentao.agent.core.host;

/** The option the user chose ({@code optionId}), or {@link #DISMISSED} (null id) when nobody chose one. */
public record ApprovalAnswer(String optionId) {
    public static final ApprovalAnswer DISMISSED = new ApprovalAnswer(null);

    public static ApprovalAnswer selected(String optionId) { return new ApprovalAnswer(optionId); }

    public boolean dismissed() { return optionId == null; }
}
