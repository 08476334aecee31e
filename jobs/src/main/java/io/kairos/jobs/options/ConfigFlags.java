package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.function.Function;

/**
 * A command's serving configuration built with its errors in the command's words: each field that
 * {@link ServingConfig.Builder#build} refuses is named by the flag that gave its value, or by the key
 * of {@code serve --config}'s file ({@link ConfigFile}) where it came from there. The flags are read
 * from the command's own options, found by the name of the field that holds each option, which is
 * the configuration field's own unless {@link #OPTION_FIELDS} says otherwise; a field that no flag
 * of the command sets keeps its name.
 */
public final class ConfigFlags {
    /** The configuration fields whose option is held in a field of another name. */
    private static final Map<String, String> OPTION_FIELDS = Map.of(
            "consumerGroup", "groupId",
            "policyParams", "params",
            "devices", "spec",
            "deviceTypes", "spec",
            "reportCoalesceMicros", "intervalMs",
            "reportCoalesceBatches", "maxBatches");

    private ConfigFlags() {}

    /**
     * The configuration {@code config} holds, checked.
     *
     * @throws CommandLine.ParameterException in one line naming the flag or key of the value that is wrong
     */
    public static ServingConfig build(ServingConfig.Builder config, CommandLine cl) {
        try {
            return config.build(names(cl));
        } catch (ServingConfig.InvalidConfig e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
    }

    /** How {@code cl} names each configuration field: by its flag, its configuration file's key, or else the field's own name. */
    public static Function<String, String> names(CommandLine cl) {
        return field -> {
            OptionSpec option = optionOf(cl.getCommandSpec(), field);
            if (option == null) return field;
            CommandLine.ParseResult parsed = cl.getParseResult();
            boolean typed = parsed != null && parsed.hasMatchedOption(option);
            if (!typed && cl.getDefaultValueProvider() instanceof ConfigFile file && file.gives(option)) return file.nameOf(option);
            return option.longestName();
        };
    }

    /** The option of {@code command} that sets the configuration's {@code field}; null if none. */
    static OptionSpec optionOf(CommandLine.Model.CommandSpec command, String field) {
        String held = OPTION_FIELDS.getOrDefault(field, field);
        for (OptionSpec option : command.options()) {
            if (option.userObject() instanceof Field f && f.getName().equals(held)) return option;
        }
        return null;
    }
}
