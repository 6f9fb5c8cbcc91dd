package cn.agentao.agent.door.terminal;

import cn.agentao.agent.testing.AgentRun;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.testing.TmuxTerminal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The interactive chat in a real terminal: {@code bin/agent} in a tmux pane, typed into with send-keys, read with
 * capture-pane, answered by the scripted model. Every wait polls the screen; nothing measures time.
 */
class ChatIT {
    static final String PROMPT = "› ";

    @TempDir
    Path dir;
    Path ws;
    FakeModelServer model;
    Map<String, String> env;
    TmuxTerminal term;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(TmuxTerminal.available(), "tmux is installed by scripts/install-test-tools.sh");
        model = FakeModelServer.start().whenEmptyFail();
        ws = Files.createDirectories(dir.resolve("ws"));
        env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("XDG_STATE_HOME", dir.resolve("state").toString());
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (term != null) {
                String screen = term.screen();
                assertFalse(screen.contains("WARNING") || screen.contains("[INFO]") || screen.contains("[WARN]")
                        || screen.contains("Exception") || screen.contains("\tat "), "nothing but the interface on the screen:\n" + screen);
                assertFalse(screen.contains(FakeModelServer.API_KEY), "no key on the screen");
            }
        } finally {
            if (term != null) term.close();
            if (model != null) model.close();
        }
    }

    private TmuxTerminal open(String... args) throws Exception {
        term = TmuxTerminal.start(ws, env, 100, 50, args);
        term.awaitText(PROMPT);
        return term;
    }

    /** Types a prompt, sends it, and waits for the prompt to come back after {@code answerMark}. */
    private void send(String text, String answerMark) throws Exception {
        term.type(text);
        term.press("Enter");
        term.awaitText(answerMark);
        term.await("the prompt after the answer", s -> s.substring(s.lastIndexOf(answerMark)).contains(PROMPT));
    }

    @Test
    void aPromptWithAStatusLineThenTheStreamedAnswer() throws Exception {
        model.enqueue(Script.reply().text("Hello ", "from ", "the model").usage(100, 20).finish("stop"));
        open();
        assertTrue(term.screen().contains("workspace-write"), "the status line names the mode");
        send("hi there", "Hello from the model");
        String screen = term.await("the status line with model and context", s -> s.contains("fake-model · workspace-write · context"));
        assertTrue(screen.contains(PROMPT + "hi there"), screen);
        assertEquals("hi there", model.requests().get(0).lastUserMessage());
        term.press("C-d");
        assertEquals(0, term.awaitExit());
        assertTrue(term.settingsRestored(), "the terminal is left as it was found (echo, line editing)");
    }

    @Test
    void undoTakesBackWhatTheLastTurnWrote() throws Exception {
        Files.writeString(ws.resolve("notes.txt"), "mine\n");
        model.enqueue(Script.reply().toolCall("w1", "write_file", "{\"path\":\"notes.txt\",\"content\":\"the agent's\\n\"}")
                        .toolCall("w2", "write_file", "{\"path\":\"made.txt\",\"content\":\"new\\n\"}"),
                Script.textReply("Both written."));
        open();
        send("write them", "Both written.");
        assertEquals("the agent's\n", Files.readString(ws.resolve("notes.txt")));
        send("/undo", "Undid turn 1");
        String screen = term.await("the files named", s -> s.contains("Deleted") && s.contains("made.txt"));
        assertTrue(screen.contains("Restored: notes.txt") || screen.contains("Restored: `notes.txt`"), screen);
        assertEquals("mine\n", Files.readString(ws.resolve("notes.txt")));
        assertFalse(Files.exists(ws.resolve("made.txt")));
        term.press("C-d");
        assertEquals(0, term.awaitExit());
    }

    @Test
    void aQuestionOnTheCommandLineOpensTheChatAskedIt() throws Exception {
        model.enqueue(Script.textReply("answered at start"), Script.textReply("then typed"));
        term = TmuxTerminal.start(ws, env, 100, 50, "what is this project?");
        term.awaitText("answered at start");
        term.await("the prompt after the answer", s -> s.substring(s.lastIndexOf("answered at start")).contains(PROMPT));
        assertEquals("what is this project?", model.requests().get(0).lastUserMessage());
        assertTrue(term.screen().contains(PROMPT + "what is this project?"), "the question is shown as asked:\n" + term.screen());
        send("and more", "then typed");
        assertTrue(model.requests().get(1).messages().toString().contains("answered at start"), "one conversation");
        term.press("C-d");
        assertEquals(0, term.awaitExit());
    }

    @Test
    void historyFollowsHomeAndIsTheUsersOnly() throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        env.put("HOME", home.toString());
        env.put("XDG_STATE_HOME", ""); // not set: the default under $HOME
        model.enqueue(Script.textReply("noted"));
        open();
        send("my private question", "noted");
        term.press("C-d");
        assertEquals(0, term.awaitExit());
        Path history = home.resolve(".local/state/agent/history");
        assertTrue(Files.isRegularFile(history), "the history is under $HOME");
        assertTrue(Files.readString(history).contains("my private question"));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(history)),
                "only the user reads what was typed");
    }

    @Test
    void acpInATerminalSaysWhatItIsAndWhereTheChatIs() throws Exception {
        env.put("AGENT_LOG_LEVEL", "error");
        term = TmuxTerminal.start(ws, env, 100, 50, "--acp");
        String screen = term.await("the note on stderr", s -> s.contains("Agent Client Protocol"));
        assertTrue(screen.contains("run bin/agent without --acp"), screen);
        term.press("C-d");
        assertEquals(0, term.awaitExit());
    }

    @Test
    void theFirstRunWithNothingConfiguredOffersLoginThenChats() throws Exception {
        for (String k : new String[]{"LLM_PROVIDER", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"}) env.remove(k);
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        model.enqueue(Script.textReply("configured and answering"));
        term = TmuxTerminal.start(ws, env, 120, 50);
        String offer = term.awaitText("Set one up now with agent login? [Y/n]");
        assertTrue(offer.contains("no model provider is configured"), offer);
        term.type("y");
        term.press("Enter");
        term.awaitText("Provider [1-");
        for (String[] step : new String[][]{{"6", "A short name"}, {"fake", "API key (not shown)"},
                {FakeModelServer.API_KEY, "Base URL"}, {model.baseUrl(), "Model (required)"}, {"1", PROMPT}}) {
            term.type(step[0]);
            term.press("Enter");
            term.awaitText(step[1]);
        }
        send("hello", "configured and answering");
        assertEquals(FakeModelServer.MODEL, model.requests().get(model.requests().size() - 1).body().path("model").asText(),
                "the model picked at login");
        term.press("C-d");
        assertEquals(0, term.awaitExit());
        assertFalse(term.screen().contains(FakeModelServer.API_KEY), "the key never shows");
    }

    @Test
    void markdownIsRenderedWithColourAndPlainWithoutIt() throws Exception {
        String answer = "# Big title\n\nSome **strong** words and `code`.\n\n- first\n- second\n\n| key | value |\n|---|---|\n| a | 1 |\n| longer | 22 |\n\n```java\nint x = 1;\n```\nend.\n";
        model.enqueue(Script.reply().reasoning("pondering deeply\n").text(answer).finish("stop"), Script.textReply(answer));
        open();
        send("render", "end.");
        String plain = term.screen();
        assertTrue(plain.contains("• first") && plain.contains("• second"), plain);
        assertTrue(plain.contains("key    │ value") && plain.contains("longer │ 22"), "the table's columns line up:\n" + plain);
        assertTrue(plain.contains("│ int x = 1;"), plain);
        assertFalse(plain.contains("**strong**") || plain.contains("# Big title"), "the Markdown markers are rendered away:\n" + plain);
        String styled = term.screenWithStyles();
        assertTrue(styled.contains("\u001b[1m") && styled.contains("strong"), "bold is bold");
        assertTrue(plain.contains("pondering deeply"), "the reasoning is shown");
        assertTrue(styled.matches("(?s).*\u001b\\[(?:[0-9]+;)*2(?:;[0-9]+)*m[^\n]*pondering deeply.*"), "the reasoning is dimmed:\n" + styled);
        term.press("C-d");
        assertEquals(0, term.awaitExit());

        term.close();
        env.put("NO_COLOR", "1");
        open();
        send("again", "end.");
        String noColour = term.screenWithStyles();
        String after = noColour.substring(noColour.indexOf("again"));
        assertFalse(after.contains("\u001b["), "NO_COLOR: no escape codes at all:\n" + after);
        assertTrue(after.contains("Some **strong** words"), "plain text is the Markdown as written:\n" + after);
    }

    @Test
    void aDumbTerminalGetsPlainText() throws Exception {
        model.enqueue(Script.textReply("Some **strong** words\n"));
        env.put("TERM", "dumb");
        open();
        send("hi", "words");
        assertTrue(term.screen().contains(PROMPT + "hi"), "what is typed is shown:\n" + term.screen());
        String styled = term.screenWithStyles();
        assertTrue(styled.contains("Some **strong** words"), styled);
        assertFalse(styled.substring(styled.indexOf("Some")).contains("\u001b[1m"), styled);
    }

    @Test
    void toolCallsAreOneLineEditsAreDiffsOutputIsTailedPlansAreChecklists() throws Exception {
        Files.writeString(ws.resolve("app.txt"), "alpha\nbeta\ngamma\n");
        model.enqueue(Script.reply()
                        .toolCall("t1", "todo_write", "{\"todos\":[{\"content\":\"Rename beta\",\"status\":\"completed\"},{\"content\":\"Count\",\"status\":\"in_progress\"},{\"content\":\"Report\",\"status\":\"pending\"}]}")
                        .finish("tool_calls"),
                Script.reply().toolCall("t2", "edit", "{\"path\":\"app.txt\",\"old_string\":\"beta\",\"new_string\":\"BETA\"}").finish("tool_calls"),
                Script.reply().toolCall("t3", "run_shell_command", "{\"command\":\"seq 1 30\"}").finish("tool_calls"),
                Script.textReply("all done"));
        open("--mode", "full-access");
        send("go", "all done");
        String s = term.screen();
        assertTrue(s.contains("☑ Rename beta") && s.contains("◐ Count") && s.contains("☐ Report"), "the plan is a checklist:\n" + s);
        assertTrue(s.contains("- beta") && s.contains("+ BETA"), "the edit is a diff:\n" + s);
        assertTrue(s.contains("30") && s.contains("25 lines above"), "the command's output is tailed:\n" + s);
        assertTrue(s.contains("✓"), "finished tool calls are marked:\n" + s);
        assertEquals("alpha\nBETA\ngamma\n", Files.readString(ws.resolve("app.txt")));
        String styled = term.screenWithStyles();
        assertTrue(styled.contains("\u001b[32m+ BETA"), "additions are green");
    }

    @Test
    void permissionQuestionsTakeOneKey() throws Exception {
        String write = "{\"path\":\".env\",\"content\":\"X=1\"}";
        model.enqueue(Script.reply().toolCall("w1", "write_file", write).finish("tool_calls"), Script.textReply("first over"),
                Script.reply().toolCall("w2", "write_file", write).finish("tool_calls"), Script.textReply("second over"),
                Script.reply().toolCall("w3", "write_file", write).finish("tool_calls"), Script.textReply("never sent"));
        open();
        term.type("write it");
        term.press("Enter");
        term.awaitText("[y]");
        String q = term.screen();
        assertTrue(q.contains("[n]") && q.contains("[Esc]"), q);
        term.type("n");
        term.awaitText("first over");
        assertFalse(Files.exists(ws.resolve(".env")), "n rejected the write");

        term.await("prompt", s -> s.substring(s.lastIndexOf("first over")).contains(PROMPT));
        term.type("write it again");
        term.press("Enter");
        term.awaitCount("[y]", 2);
        term.type("y");
        term.awaitText("second over");
        assertEquals("X=1", Files.readString(ws.resolve(".env")), "y allowed it once");
        Files.delete(ws.resolve(".env"));

        term.await("prompt", s -> s.substring(s.lastIndexOf("second over")).contains(PROMPT));
        term.type("and once more");
        term.press("Enter");
        term.awaitCount("[y]", 3);
        term.press("Escape");
        term.awaitText("cancelled");
        assertFalse(Files.exists(ws.resolve(".env")), "Esc rejected it");
        term.await("prompt", s -> s.substring(s.lastIndexOf("cancelled")).contains(PROMPT));
        assertFalse(term.screen().contains("never sent"), "Esc cancelled the turn");
    }

    /** Waits for the prompt to come back after {@code mark}. */
    private void awaitPromptAfter(String mark) throws Exception {
        term.awaitText(mark);
        term.await("the prompt after " + mark, s -> s.substring(s.lastIndexOf(mark)).contains(PROMPT));
    }

    @Test
    void alwaysAllowAndAlwaysRejectStickForTheNextCall() throws Exception {
        env.put("AGENT_SANDBOX", "none"); // without a sandbox an ordinary command asks, and "always" is offered per program
        model.enqueue(Script.reply().toolCall("c1", "run_shell_command", "{\"command\":\"touch made-1\"}").finish("tool_calls"),
                Script.textReply("ANSWER-ONE"),
                Script.reply().toolCall("c2", "run_shell_command", "{\"command\":\"touch made-2\"}").finish("tool_calls"),
                Script.textReply("ANSWER-TWO"),
                Script.reply().toolCall("c3", "run_shell_command", "{\"command\":\"mkdir dir-1\"}").finish("tool_calls"),
                Script.textReply("ANSWER-THREE"),
                Script.reply().toolCall("c4", "run_shell_command", "{\"command\":\"mkdir dir-2\"}").finish("tool_calls"),
                Script.textReply("ANSWER-FOUR"));
        open();
        answerQuestion("first", 1, "a", "ANSWER-ONE");
        assertTrue(term.screen().contains("[r]"), "the four answers are offered:\n" + term.screen());
        assertTrue(Files.exists(ws.resolve("made-1")), "a allowed the command");

        send("second", "ANSWER-TWO");
        assertTrue(Files.exists(ws.resolve("made-2")), "the next touch ran");
        assertEquals(1, count(term.screen(), "[a]"), "and was not asked: 'always' stuck:\n" + term.screen());

        answerQuestion("third", 2, "r", "ANSWER-THREE");
        assertFalse(Files.exists(ws.resolve("dir-1")), "r rejected the command");

        send("fourth", "ANSWER-FOUR");
        assertFalse(Files.exists(ws.resolve("dir-2")), "the next mkdir was rejected too");
        assertEquals(2, count(term.screen(), "[a]"), "without a question: 'always reject' stuck:\n" + term.screen());
        assertEquals(8, model.requests().size(), "each call was answered without a question: the turns went on");
    }

    /** Sends {@code prompt}, answers its permission question (the {@code nth} on the screen) with {@code key}. */
    private void answerQuestion(String prompt, int nth, String key, String answerMark) throws Exception {
        term.type(prompt);
        term.press("Enter");
        term.awaitCount("[a]", nth);
        term.type(key);
        awaitPromptAfter(answerMark);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) n++;
        return n;
    }

    @Test
    void ctrlCDuringAPermissionQuestionRejectsAndCancelsTheTurn() throws Exception {
        String write = "{\"path\":\".env\",\"content\":\"X=1\"}";
        model.enqueue(Script.reply().toolCall("w1", "write_file", write).finish("tool_calls"),
                Script.textReply("ANSWER-AFTER"));
        open();
        term.type("write it");
        term.press("Enter");
        term.awaitText("[y]");
        term.press("C-c");
        awaitPromptAfter("cancelled");
        assertFalse(Files.exists(ws.resolve(".env")), "Ctrl-C rejected the write");
        send("still here?", "ANSWER-AFTER"); // the chat goes on: the next prompt is answered
        assertEquals(2, model.requests().size(), "the cancelled turn asked the model nothing more");
        assertEquals("still here?", model.requests().get(1).lastUserMessage());
    }

    @Test
    void askUserShowsTheQuestionAndTheTypedAnswerGoesBackToTheModel() throws Exception {
        model.enqueue(Script.reply().toolCall("q1", "ask_user",
                        "{\"question\":\"Which colour should the button be?\",\"options\":[\"red\",\"blue\"]}").finish("tool_calls"),
                Script.textReply("ANSWER-DONE"));
        open();
        term.type("make a button");
        term.press("Enter");
        term.awaitText("Which colour should the button be?");
        term.awaitText("answer›");
        assertTrue(term.screen().contains("red · blue"), "the suggested answers are shown:\n" + term.screen());
        term.type("teal please");
        term.press("Enter");
        awaitPromptAfter("ANSWER-DONE");
        String second = model.awaitRequests(2, Duration.ofSeconds(30)).get(1).messages().toString();
        assertTrue(second.contains("teal please"), "the typed answer is the tool's result:\n" + second);
    }

    @Test
    void ctrlCCancelsATurnThenTwiceOnAnEmptyPromptExits() throws Exception {
        model.enqueue(Script.reply().text("thinking about it").hang());
        open();
        term.type("long task");
        term.press("Enter");
        term.awaitText("thinking about it");
        term.press("C-c");
        term.awaitText("cancelled");
        term.await("the prompt back", s -> s.substring(s.lastIndexOf("cancelled")).contains(PROMPT));
        term.press("C-c");
        term.awaitText("Ctrl-C again");
        term.press("C-c");
        assertEquals(0, term.awaitExit());
        assertTrue(term.settingsRestored(), "the terminal is left as it was found");
    }

    @Test
    void multiLineInputAltEnterBackslashAndPaste() throws Exception {
        model.enqueue(Script.textReply("ANSWER-ONE"), Script.textReply("ANSWER-TWO"), Script.textReply("ANSWER-THREE"));
        open();
        term.type("line one");
        term.press("M-Enter");
        term.type("line two");
        term.press("Enter");
        term.awaitText("ANSWER-ONE"); // markers unlike anything typed: the wait ends on the answer, not on the echo
        assertEquals("line one\nline two", model.awaitRequests(1, Duration.ofSeconds(30)).get(0).lastUserMessage());
        term.await("prompt", s -> s.substring(s.lastIndexOf("ANSWER-ONE")).contains(PROMPT));

        term.type("first\\");
        term.press("Enter");
        term.type("second");
        term.press("Enter");
        assertEquals("first\nsecond", model.awaitRequests(2, Duration.ofSeconds(30)).get(1).lastUserMessage());
        term.awaitText("ANSWER-TWO");
        term.await("prompt", s -> s.substring(s.lastIndexOf("ANSWER-TWO")).contains(PROMPT));

        term.paste("pasted a\npasted b\npasted c");
        term.press("Enter");
        assertEquals("pasted a\npasted b\npasted c", model.awaitRequests(3, Duration.ofSeconds(30)).get(2).lastUserMessage());
    }

    @Test
    void keysTypedTheMomentThePromptShowsAreKeptAsTyped() throws Exception {
        // the first prompt is drawn before the line editor is ready: what is typed at once must behave the same
        model.enqueue(Script.textReply("ANSWER-ONE"));
        term = TmuxTerminal.start(ws, env, 100, 50);
        term.awaitText(PROMPT);
        term.type("abd");
        term.press("Left");
        term.type("c");
        term.press("M-Enter");
        term.type("second line");
        term.press("Enter");
        term.awaitText("ANSWER-ONE");
        // Left moved before the d: c went in there, and so did the new line and the rest
        assertEquals("abc\nsecond lined", model.awaitRequests(1, Duration.ofSeconds(30)).get(0).lastUserMessage());
        String screen = term.screen();
        assertFalse(screen.contains("^[") || screen.contains("[D"), "no key echoed raw:\n" + screen);
        term.press("C-d");
        assertEquals(0, term.awaitExit());
        assertTrue(term.settingsRestored(), "the terminal is left as it was found");
    }

    @Test
    void historyIsKeptAcrossRuns() throws Exception {
        model.enqueue(Script.textReply("noted"));
        open();
        send("a prompt worth remembering", "noted");
        term.press("C-d");
        assertEquals(0, term.awaitExit());
        term.close();
        assertTrue(Files.readString(dir.resolve("state/agent/history")).contains("a prompt worth remembering"),
                "kept in the XDG state directory");

        open();
        term.press("Up");
        term.await("the previous prompt recalled", s -> s.lines().anyMatch(l -> l.startsWith(PROMPT + "a prompt worth remembering")));
        term.press("C-u", "C-r");
        term.type("worth");
        term.awaitText("a prompt worth remembering");
    }

    @Test
    void slashCommandsCompleteAndWork() throws Exception {
        model.enqueue(Script.textReply("first answer"));
        open();
        term.type("/he");
        term.press("Tab");
        term.await("completed to /help", s -> s.contains(PROMPT + "/help"));
        term.press("Enter");
        term.awaitText("/compact");
        term.awaitText("/sessions");

        term.type("/mode read-only");
        term.press("Enter");
        term.await("the status line in read-only", s -> s.contains("· read-only"));

        term.type("/model");
        term.press("Enter");
        term.awaitText("model (number or name");
        assertTrue(term.screen().contains("1  openai/fake-model"), term.screen());
        term.type("1");
        term.press("Enter");
        term.awaitText("Model switched to openai/fake-model"); // the `code` span rendered

        send("hello", "first answer");
        term.type("/sessions");
        term.press("Enter");
        term.awaitText("(this one)");
        term.type("/new");
        term.press("Enter");
        term.awaitText("New conversation.");
        term.type("/exit");
        term.press("Enter");
        assertEquals(0, term.awaitExit());
        assertEquals(0, model.requests().stream().filter(r -> r.lastUserMessage().startsWith("/")).count(),
                "commands are answered by the agent, not sent to the model");
    }

    @Test
    void atMentionsCompleteAndAttachTheFile() throws Exception {
        Files.writeString(ws.resolve("notes.txt"), "the secret ingredient is CARDAMOM\n");
        Files.createDirectories(ws.resolve(".git"));
        Files.writeString(ws.resolve(".gitignore"), "ignored.txt\n");
        Files.writeString(ws.resolve("ignored.txt"), "x");
        model.enqueue(Script.textReply("read it"));
        open();
        term.type("what is in @no");
        term.press("Tab");
        term.await("completed to @notes.txt", s -> s.contains("@notes.txt"));
        term.type("?");
        term.press("Enter");
        term.awaitText("read it");
        String sent = model.requests().get(0).messages().toString();
        assertTrue(sent.contains("CARDAMOM"), "the file went to the model with the prompt");
        term.await("prompt", s -> s.substring(s.lastIndexOf("read it")).contains(PROMPT));
        term.type("@ign");
        term.press("Tab");
        Thread.sleep(500); // give completion its chance to (wrongly) complete: the assertion below is about absence
        assertFalse(term.screen().contains("@ignored.txt"), "git-ignored files are not offered");
    }

    private static byte[] png(int width, int height) throws Exception {
        java.awt.image.BufferedImage image = new java.awt.image.BufferedImage(width, height, java.awt.image.BufferedImage.TYPE_INT_RGB);
        image.setRGB(0, 0, 0xFF0000);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        javax.imageio.ImageIO.write(image, "png", out);
        return out.toByteArray();
    }

    /** The base64 data of every image in the last request to the Anthropic API. */
    private List<String> imagesSent() {
        List<String> data = new java.util.ArrayList<>();
        for (var m : model.lastRequest().body().path("messages")) {
            for (var part : m.path("content")) {
                if (part.path("type").asText().equals("image")) data.add(part.path("source").path("data").asText());
            }
        }
        return data;
    }

    @Test
    void anAtMentionedOrPastedImageGoesToTheModelAsAnImage() throws Exception {
        byte[] shot = png(12, 8);
        Files.write(ws.resolve("shot.png"), shot);
        Path dragged = Files.createDirectories(dir.resolve("my pictures")).resolve("a dot.png"); // outside the workspace
        byte[] dot = png(3, 5);
        Files.write(dragged, dot);
        Files.write(ws.resolve("huge.png"), png(9000, 2));
        env.putAll(model.anthropicEnvironment());
        env.put("ANTHROPIC_MODEL", "claude-sonnet-4-6"); // known to take images
        model.enqueue(Script.textReply("IMAGE-ONE"), Script.textReply("IMAGE-TWO"), Script.textReply("IMAGE-THREE"),
                Script.textReply("IMAGE-FOUR"));
        open();

        send("what is in @shot.png?", "IMAGE-ONE");
        assertEquals(List.of(Base64.getEncoder().encodeToString(shot)), imagesSent(), model.lastRequest().rawBody());

        term.paste("'" + dragged + "'"); // as a terminal pastes a file dragged onto it
        term.press("Enter");
        term.awaitText("IMAGE-TWO");
        term.await("prompt", s -> s.substring(s.lastIndexOf("IMAGE-TWO")).contains(PROMPT));
        assertTrue(imagesSent().contains(Base64.getEncoder().encodeToString(dot)), "the pasted path's image went: "
                + model.lastRequest().rawBody());

        term.paste(dragged.toString().replace(" ", "\\ ")); // the other way terminals paste a path with spaces
        term.press("Enter");
        term.awaitText("IMAGE-THREE");
        term.await("prompt", s -> s.substring(s.lastIndexOf("IMAGE-THREE")).contains(PROMPT));
        assertEquals(3, imagesSent().size(), "every image of the conversation is sent again: " + imagesSent().size());

        send("and @huge.png?", "IMAGE-FOUR");
        assertTrue(term.screen().contains("@huge.png is a PNG image of 9000×2 pixels"), term.screen());
        assertTrue(term.screen().contains("larger than models accept"), term.screen());
        assertEquals(3, imagesSent().size(), "the image too large for models was not attached");
    }

    @Test
    void aModelWithoutImagesReadsWhatTheMentionedImageWas() throws Exception {
        byte[] shot = png(40, 30);
        Files.write(ws.resolve("shot.png"), shot);
        model.enqueue(Script.textReply("NO-IMAGES"));
        open();
        send("what is in @shot.png?", "NO-IMAGES");
        String body = model.lastRequest().rawBody();
        assertFalse(body.contains("image_url"), body);
        assertTrue(body.contains("A PNG image of 40×30 pixels, " + shot.length + " bytes; this model does not accept images."), body);
    }

    @Test
    void bangRunsACommandUnderTheRulesAndItsOutputJoinsTheConversation() throws Exception {
        model.enqueue(Script.textReply("I see the output"));
        open();
        term.type("!echo MARKER-$((6*7))");
        term.press("Enter");
        term.awaitText("MARKER-42");
        term.await("prompt", s -> s.substring(s.lastIndexOf("MARKER-42")).contains(PROMPT));
        send("what did it print?", "I see the output");
        assertTrue(model.requests().get(0).messages().toString().contains("MARKER-42"), "the output is in the conversation");

        term.type("!seq 101 160");
        term.press("Enter");
        term.awaitText("    160");
        term.await("prompt", s -> s.substring(s.lastIndexOf("    160")).contains(PROMPT));
        String shown = term.screen();
        for (int i = 101; i <= 160; i++) assertTrue(shown.contains("    " + i + "\n"), i + " shown: the user's own output is whole:\n" + shown);
        assertFalse(shown.contains("lines above"), shown);

        term.type("!echo X > .env");
        term.press("Enter");
        term.awaitText("[y]"); // a write to .env asks, as the model's own command would
        term.type("n");
        term.awaitText("→ Reject");
        assertFalse(Files.exists(ws.resolve(".env")));
    }

    @Test
    void theUsersOwnCommandShowsAllItsOutputWhileTheConversationKeepsItsEnds() throws Exception {
        model.enqueue(Script.textReply("noted"));
        open();
        Path seen = dir.resolve("terminal-output.txt");
        term.recordOutput(seen);
        term.type("!seq 100000 120000"); // 21,001 lines, 147,007 characters: far over what the model gets
        term.press("Enter");
        term.awaitText("that is all the model sees of it");
        term.await("prompt", s -> s.substring(s.lastIndexOf("the model sees of it")).contains(PROMPT));
        String shown = Files.readString(seen);
        for (String line : List.of("100000", "105000", "110000", "115000", "120000")) {
            assertTrue(shown.contains("    " + line), line + " reached the user");
        }
        assertFalse(shown.contains("characters omitted"), "nothing was cut on the user's screen");
        send("what did it print?", "noted");
        String sent = model.requests().get(0).messages().toString();
        assertTrue(sent.contains("101000") && sent.contains("119000") && sent.contains("characters omitted"),
                "the conversation keeps its beginning and end");
        assertFalse(sent.contains("110000"), "but not its middle");
    }

    @Test
    void continueAndResumeShowTheConversation() throws Exception {
        model.enqueue(Script.textReply("the first answer"));
        AgentRun.Result first = AgentRun.run(ws, env, null, "-p", "a question from before", "--output-format", "json");
        assertEquals(0, first.exit(), first.stderr());
        String id = cn.agentao.agent.util.Json.mapper().readTree(first.stdout()).path("sessionId").asText();

        open("--continue");
        String s = term.screen();
        assertTrue(s.contains("a question from before") && s.contains("the first answer"), "the history is shown:\n" + s);
        model.enqueue(Script.textReply("continued"));
        send("and now?", "continued");
        assertTrue(model.requests().get(1).messages().toString().contains("a question from before"));
        term.press("C-d");
        assertEquals(0, term.awaitExit());
        term.close();

        open("--resume", id.substring(0, 8));
        term.awaitText("and now?");
        term.awaitText("Resumed " + id);
    }
}
