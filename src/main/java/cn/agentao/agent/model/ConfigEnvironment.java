package cn.agentao.agent.model;

import cn.agentao.agent.config.ConfigLocations;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The layered variables configuration is read from, highest first: the process environment, the session's
 * {@code <cwd>/.env} (held back by {@link ProjectDotEnv} until the user trusts the project), the user's {@code .env}.
 * An empty or blank value counts as unset in every layer (some launchers export {@code ANTHROPIC_API_KEY=""},
 * which must not hide a real key further down).
 */
public final class ConfigEnvironment {

    /** One source of variables and the words that tell a user where it is. */
    public record Layer(String description, Map<String, String> values, boolean project) {
        public Layer(String description, Map<String, String> values) {
            this(description, values, false);
        }


        Optional<String> get(String name) {
            String value = values.get(name);
            return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
        }

        @Override
        public String toString() {
            return "Layer[" + description + ", " + values.size() + " variables]";
        }
    }

    /** Where a provider's requests go and with which key; key and URL always come from the same layer. */
    public record Endpoint(String apiKey, String apiKeyOrigin, String baseUrl, String apiFormat) {
        @Override
        public String toString() {
            return "Endpoint[apiKey=" + (apiKey == null ? "none" : "***") + ", baseUrl=" + baseUrl
                    + ", apiFormat=" + apiFormat + "]";
        }
    }

    private final List<Layer> layers;
    private final List<String> notices;

    public ConfigEnvironment(List<Layer> layers) {
        this(layers, List.of());
    }

    private ConfigEnvironment(List<Layer> layers, List<String> notices) {
        this.layers = List.copyOf(layers);
        this.notices = List.copyOf(notices);
    }

    /** Reads the process environment and the two {@code .env} files named by {@code locations}. */
    public static ConfigEnvironment load(Map<String, String> processEnvironment, ConfigLocations locations) {
        Path project = locations.projectDotEnv();
        ProjectDotEnv.Reading reading = ProjectDotEnv.read(project, locations.projectTrusted(), processEnvironment);
        String notice = project == null ? null : ProjectDotEnv.notice(project, reading, locations.trustedProjects());
        return new ConfigEnvironment(List.of(
                new Layer("the environment", processEnvironment),
                new Layer(project == null ? ".env" : project.toString(), reading.values(), true),
                dotEnvLayer(locations.userDotEnv(), processEnvironment)),
                notice == null ? List.of() : List.of(notice));
    }

    /** What the user should know about the layers: a project {@code .env} whose settings were held back. */
    public List<String> notices() {
        return notices;
    }

    /** As {@link #get} from the user's own layers only (the environment and the user's {@code .env}). */
    public Optional<String> getFromUser(String name) {
        for (Layer layer : layers) {
            if (layer.project()) continue;
            Optional<String> value = layer.get(name);
            if (value.isPresent()) return value;
        }
        return Optional.empty();
    }

    private static Layer dotEnvLayer(Path file, Map<String, String> processEnvironment) {
        return new Layer(file == null ? ".env" : file.toString(), DotEnv.read(file, processEnvironment::get));
    }

    /** The sources, highest first. */
    public List<Layer> layers() {
        return layers;
    }

    public Optional<String> get(String name) {
        for (Layer layer : layers) {
            Optional<String> value = layer.get(name);
            if (value.isPresent()) {
                return value;
            }
        }
        return Optional.empty();
    }

    /** The description of the highest layer that sets {@code name}, e.g. {@code /home/me/project/.env}. */
    public Optional<String> origin(String name) {
        return layers.stream().filter(layer -> layer.get(name).isPresent()).map(Layer::description).findFirst();
    }

    /**
     * {@code {PREFIX}_API_KEY}, {@code {PREFIX}_BASE_URL} and {@code {PREFIX}_API_FORMAT} as one unit from the
     * highest layer that sets the key: a shell's key exported for some other tool must never be sent to the
     * endpoint a project's {@code .env} names. Without a key anywhere, URL and format come field by field.
     */
    public Endpoint endpoint(String prefix) {
        String keyName = prefix + "_API_KEY";
        for (Layer layer : layers) {
            Optional<String> key = layer.get(keyName);
            if (key.isPresent()) {
                return new Endpoint(key.get(), keyName + " (from " + layer.description() + ")",
                        layer.get(prefix + "_BASE_URL").orElse(null), layer.get(prefix + "_API_FORMAT").orElse(null));
            }
        }
        return new Endpoint(null, null, get(prefix + "_BASE_URL").orElse(null), get(prefix + "_API_FORMAT").orElse(null));
    }
}
