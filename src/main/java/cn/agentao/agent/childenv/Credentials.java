package cn.agentao.agent.childenv;

import cn.agentao.agent.model.ConfigEnvironment;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.model.ModelCatalog;
import cn.agentao.agent.model.UserConfigFile;
import cn.agentao.agent.util.SecretMask;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What counts as a credential for the children of one session: variables named like one
 * ({@link CredentialNames}), the variables the configured providers read their keys from, and the secret values
 * themselves (the providers' keys from every source, the values of credential variables in the environment and
 * the {@code .env} files), so a copy under an innocent name is caught too. A value with a password in a URL
 * ({@code postgres://user:pw@host}) is a credential as well. The user's {@code passEnv} names are exempt.
 *
 * @param keyVariables the providers' key variables (e.g. an {@code apiKeyEnv} named {@code MY_LLM})
 * @param values       secret values of at least {@value #MIN_SECRET_LENGTH} characters
 * @param passEnv      variables the user's own configuration passes on to children by name
 */
public record Credentials(Set<String> keyVariables, Set<String> values, Set<String> passEnv) {
    /** Shorter values are not matched inside other values ({@code true}, {@code 1} and {@code local} are no secrets). */
    public static final int MIN_SECRET_LENGTH = 8;
    private static final Pattern URL_PASSWORD = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://[^/\\s:@]+:[^/\\s@]+@");

    public Credentials {
        keyVariables = Set.copyOf(keyVariables);
        Set<String> longEnough = new LinkedHashSet<>();
        for (String v : values) if (v != null && v.length() >= MIN_SECRET_LENGTH) longEnough.add(v);
        values = Set.copyOf(longEnough);
        passEnv = Set.copyOf(passEnv);
    }

    /**
     * The credentials of {@code environment} alone: its credential variables' values; nothing passed on. For
     * children started outside a session, and as the floor of every session's credentials.
     */
    public static Credentials of(Map<String, String> environment) {
        return of(environment, Set.of(), Set.of(), Set.of());
    }

    /** {@code environment}'s credential values plus {@code secretValues}, minus what {@code passEnv} passes on. */
    public static Credentials of(Map<String, String> environment, Set<String> keyVariables,
                                 Collection<String> secretValues, Collection<String> passEnv) {
        Set<String> values = new LinkedHashSet<>(secretValues);
        environment.forEach((name, value) -> {
            if (CredentialNames.isCredential(name) || keyVariables.contains(name)) values.add(value);
        });
        for (String passed : passEnv) if (!CredentialNames.isDeclared(passed)) values.remove(environment.get(passed));
        return new Credentials(keyVariables, values, Set.copyOf(passEnv));
    }

    /**
     * The credentials of a session in the directory {@code locations} describes: the catalog's provider keys and
     * key variables, the credential variables of the environment and both {@code .env} files, and the user
     * {@code config.json}'s {@code passEnv} (never a project file's).
     */
    public static Credentials load(Map<String, String> environment, ConfigLocations locations, ModelCatalog catalog) {
        return load(environment, locations, catalog, UserConfigFile.read(locations.userConfigJson()));
    }

    /** As {@link #load(Map, ConfigLocations, ModelCatalog)}, with the user's {@code config.json} already read. */
    public static Credentials load(Map<String, String> environment, ConfigLocations locations, ModelCatalog catalog,
                                   UserConfigFile user) {
        Set<String> keyVariables = new LinkedHashSet<>(catalog.keyVariables());
        keyVariables.addAll(user.tokenVariables()); // the tokens of the SMCP office, the Agora server, remote A2A agents
        Set<String> values = new LinkedHashSet<>(catalog.keys());
        for (ConfigEnvironment.Layer layer : ConfigEnvironment.load(environment, locations).layers()) {
            layer.values().forEach((name, value) -> {
                if (CredentialNames.isCredential(name) || keyVariables.contains(name)) values.add(value);
            });
        }
        return of(environment, keyVariables, values, user.passEnv());
    }

    /** Whether the variable {@code name=value} must be kept from a child: a credential name or a secret value. */
    public boolean hides(String name, String value) {
        if (passEnv.contains(name) && !CredentialNames.isDeclared(name)) return false;
        return isCredentialName(name) || holdsSecret(value);
    }

    /** A credential's name (ignoring {@code passEnv}). */
    public boolean isCredentialName(String name) {
        return CredentialNames.isCredential(name) || keyVariables.contains(name);
    }

    /** Whether {@code text} contains a known secret value or a URL with a password. */
    public boolean holdsSecret(String text) {
        if (text == null || text.isEmpty()) return false;
        for (String secret : values) if (text.contains(secret)) return true;
        return URL_PASSWORD.matcher(text).find();
    }

    /** {@code text} with every known secret value replaced by {@code ***} (null stays null). */
    public String mask(String text) {
        return SecretMask.mask(text, values, MIN_SECRET_LENGTH);
    }

    @Override
    public String toString() {
        return "Credentials[keyVariables=" + keyVariables + ", " + values.size() + " values, passEnv=" + passEnv + "]";
    }
}
