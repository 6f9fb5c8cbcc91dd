package cn.agentao.agent.connect.a2a;

import com.fasterxml.jackson.databind.JsonNode;

/** What the stream of one remote task has said so far: its ids, its state, its answer text, its last status text. */
final class RemoteTaskView {
    private final StringBuilder answer = new StringBuilder();
    private volatile String taskId;
    private String contextId;
    private String state;
    private String statusText = "";

    /** Takes one stream event (a Task, Message, status or artifact update); true when the answer text grew. */
    synchronized boolean accept(JsonNode e) {
        switch (e.path("kind").asText()) {
            case "task" -> {
                taskId = e.path("id").asText(null);
                contextId = e.path("contextId").asText(null);
                status(e.path("status"));
                if (answer.isEmpty()) for (JsonNode a : e.path("artifacts")) answer.append(text(a.path("parts")));
            }
            case "message" -> {
                contextId = e.path("contextId").asText(contextId);
                state = "completed";
                answer.append(text(e.path("parts")));
                return true;
            }
            case "status-update" -> {
                if (taskId == null) taskId = e.path("taskId").asText(null);
                if (contextId == null) contextId = e.path("contextId").asText(null);
                status(e.path("status"));
            }
            case "artifact-update" -> {
                if (taskId == null) taskId = e.path("taskId").asText(null);
                if (!e.path("append").asBoolean(false) && !answer.isEmpty()) answer.append('\n');
                String t = text(e.path("artifact").path("parts"));
                answer.append(t);
                return !t.isEmpty();
            }
            default -> { }
        }
        return false;
    }

    private void status(JsonNode status) {
        if (status.path("state").isTextual()) state = status.path("state").asText();
        String t = text(status.path("message").path("parts"));
        if (!t.isEmpty()) statusText = t;
    }

    private static String text(JsonNode parts) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode p : parts) if (p.path("text").isTextual()) sb.append(p.path("text").asText());
        return sb.toString();
    }

    String taskId() { return taskId; }
    synchronized String contextId() { return contextId; }
    synchronized String state() { return state; }
    synchronized String answer() { return answer.toString(); }
    synchronized String statusText() { return statusText; }

    /** The answer so far, its last {@code max} characters when longer. */
    synchronized String shown(int max) {
        if (answer.length() <= max) return answer.toString();
        return "… " + (answer.length() - max) + " earlier characters omitted\n" + answer.substring(answer.length() - max);
    }
}
