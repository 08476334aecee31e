package io.kairos.jobs.options;

import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * {@code serve --config FILE}: a properties file whose keys are the command's flag names without
 * dashes ({@code bootstrap-servers=broker:9092}), giving the defaults of those flags; a flag on the
 * command line wins. Knows which key gave a value, so that an error can name the key rather than a
 * flag the user never typed ({@link ConfigFlags}).
 */
public final class ConfigFile implements CommandLine.IDefaultValueProvider {
    private final Path file;
    private final Properties properties;

    private ConfigFile(Path file, Properties properties) {
        this.file = file;
        this.properties = properties;
    }

    /**
     * The defaults {@code file} gives the command {@code cl}.
     *
     * @throws CommandLine.ParameterException for a file that cannot be read or a key that is no flag of the command
     */
    public static ConfigFile read(Path file, CommandLine cl) {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            props.load(in);
        } catch (IOException e) {
            throw new CommandLine.ParameterException(cl, "--config " + file + ": cannot read (" + e.getMessage() + ")");
        }
        for (String key : props.stringPropertyNames()) {
            if (!cl.getCommandSpec().optionsMap().containsKey("--" + key) || key.equals("config")) {
                throw new CommandLine.ParameterException(cl, "--config " + file + ": unknown key '" + key + "'");
            }
        }
        return new ConfigFile(file, props);
    }

    private static String keyOf(OptionSpec option) {
        return option.longestName().substring(2);
    }

    @Override
    public String defaultValue(CommandLine.Model.ArgSpec arg) {
        return arg instanceof OptionSpec o ? properties.getProperty(keyOf(o)) : null;
    }

    /** Whether the file has a value for {@code option}. */
    boolean gives(OptionSpec option) {
        return properties.containsKey(keyOf(option));
    }

    /** How an error names the value of {@code option} that came from this file: its key and the file. */
    String nameOf(OptionSpec option) {
        return "'" + keyOf(option) + "' in " + file;
    }
}
