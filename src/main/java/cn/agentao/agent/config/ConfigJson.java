package cn.agentao.agent.config;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One JSON configuration file ({@code config.json}) read once: its tree, which every part that has an entry in it
 * reads its section from ({@link #section}), instead of opening the file itself. A missing file is an empty tree;
 * a file that is not JSON, or not an object, is a {@link #problem} naming the file (and an empty tree), so the
 * process still starts and the user is told what to fix.
 *
 * @param file     where it was read from (named in every problem sentence)
 * @param root     the parsed tree, or null when the file is missing or unreadable
 * @param unreadable whether the file exists but is not valid JSON
 */
public record ConfigJson(Path file, JsonNode root, boolean unreadable) {
    /** The user's file name in the configuration directory. */
    public static final String USER_FILE = "config.json";

    /** Reads {@code file} once; never throws. */
    public static ConfigJson read(Path file) {
        if (file == null || !Files.isRegularFile(file)) return new ConfigJson(file, null, false);
        try {
            return new ConfigJson(file, Json.mapper().readTree(Files.readString(file)), false);
        } catch (IOException | RuntimeException e) {
            return new ConfigJson(file, null, true);
        }
    }

    /** Whether there is a file at all (a broken one counts). */
    public boolean exists() { return root != null || unreadable; }

    /** The file's name as problem sentences show it. */
    public String name() { return String.valueOf(file); }

    /** The entry {@code key} of the top-level object; a missing node when there is none (or no usable file). */
    public JsonNode section(String key) {
        return root != null && root.isObject() ? root.path(key) : MissingNode.getInstance();
    }

    /** What is wrong with the file as a whole, in a plain sentence naming it; empty when it is fine or absent. */
    public Optional<String> problem() {
        if (unreadable) return Optional.of(name() + " is not valid JSON; it was ignored.");
        if (root != null && !root.isObject()) return Optional.of(name() + " must contain a JSON object; it was ignored.");
        return Optional.empty();
    }
}
