package cn.agentao.agent.door.terminal;

import cn.agentao.agent.tools.search.WorkspaceFiles;
import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.LineReader;
import org.jline.reader.ParsedLine;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/** Tab completion: {@code /commands} at the start of the input, {@code @path} mentions from the workspace's files. */
final class ChatCompleter implements Completer {
    static final int MAX_FILES = 20_000;

    private final Path cwd;
    private final Supplier<List<String>> commands;
    private volatile List<String> files;

    ChatCompleter(Path cwd, Supplier<List<String>> commands) {
        this.cwd = cwd;
        this.commands = commands;
    }

    @Override
    public void complete(LineReader reader, ParsedLine line, List<Candidate> candidates) {
        String word = line.word();
        if (line.wordIndex() == 0 && line.line().startsWith("/")) {
            for (String c : commands.get()) candidates.add(new Candidate("/" + c, "/" + c, null, null, null, null, true));
        } else if (word.startsWith("@")) {
            List<String> all = files;
            if (all == null) files = all = WorkspaceFiles.list(cwd, MAX_FILES); // git-aware, once per chat
            String typed = word.substring(1);
            for (String f : all) {
                if (f.startsWith(typed) || f.contains("/" + typed)) candidates.add(new Candidate("@" + f, f, null, null, null, null, true));
            }
        }
    }
}
