package io.kairos.sql;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The provider as the planner meets it: found by its identifier, its plan made without a broker,
 * and each bad option or column told in one line that names it.
 */
class KairosModelProviderFactoryTest {
    private TableEnvironment t;

    @BeforeEach
    void tables() {
        t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        t.executeSql("CREATE TEMPORARY VIEW rows_in AS SELECT * FROM (VALUES (1, ARRAY[CAST(1.0 AS FLOAT), CAST(2.0 AS FLOAT)], CAST(3 AS FLOAT), 50.0)) AS v(id, x, a, slo)");
    }

    private String plan(String input, String output, String options, String descriptor) {
        t.executeSql("CREATE MODEL m INPUT (" + input + ") OUTPUT (" + output + ") WITH ('provider' = 'kairos', 'bootstrap.servers' = '127.0.0.1:1'" + options + ")");
        return t.explainSql("SELECT * FROM ML_PREDICT(TABLE rows_in, MODEL m, DESCRIPTOR(" + descriptor + "))");
    }

    /** The message of the exception's cause chain that comes from the provider's checks. */
    private static String problem(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c.getMessage() != null && c.getClass().getSimpleName().equals("ValidationException") && c.getCause() == null) return c.getMessage();
        }
        return String.valueOf(e.getMessage());
    }

    @Test
    void aValidModelPlansAsAnAsyncPrediction() {
        String plan = plan("x ARRAY<FLOAT>", "y ARRAY<FLOAT>, status STRING", ", 'model' = 'anything', 'slo-ms' = '20'", "x");
        assertThat(plan).contains("ML_PREDICT").contains("m");
    }

    @Test
    void aMissingModelOptionIsNamed() {
        assertThatThrownBy(() -> plan("x ARRAY<FLOAT>", "y ARRAY<FLOAT>", ", 'slo-ms' = '20'", "x"))
                .satisfies(e -> assertThat(problem(e)).isEqualTo("'model' is missing: the kairos provider needs [bootstrap.servers, model]"));
    }

    @Test
    void noDeadlineAndANonPositiveOneAreNamed() {
        assertThatThrownBy(() -> plan("x ARRAY<FLOAT>", "y ARRAY<FLOAT>", ", 'model' = 'mlp'", "x"))
                .satisfies(e -> assertThat(problem(e)).isEqualTo("neither 'slo-ms' nor 'slo-column': a request needs a deadline"));
        t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tables();
        assertThatThrownBy(() -> plan("x ARRAY<FLOAT>", "y ARRAY<FLOAT>", ", 'model' = 'mlp', 'slo-ms' = '-5'", "x"))
                .satisfies(e -> assertThat(problem(e)).isEqualTo("'slo-ms' = -5.0: a positive number of milliseconds is expected"));
    }

    @Test
    void anUnknownOptionIsNamed() {
        assertThatThrownBy(() -> plan("x ARRAY<FLOAT>", "y ARRAY<FLOAT>", ", 'model' = 'mlp', 'slo-ms' = '5', 'slo' = '5'", "x"))
                .satisfies(e -> assertThat(problem(e)).startsWith("unknown option 'slo' of the kairos provider (it takes [bootstrap.servers, model, "));
    }

    @Test
    void anOutputWithoutAnArrayOrOfAnotherTypeIsNamedByColumn() {
        assertThatThrownBy(() -> plan("x ARRAY<FLOAT>", "y STRING", ", 'model' = 'mlp', 'slo-ms' = '5'", "x"))
                .satisfies(e -> assertThat(problem(e)).isEqualTo("output column 'y' is STRING: ARRAY<FLOAT> or ARRAY<DOUBLE> (the model's output) is expected, or one of status, reason (STRING), batch_size (INT)"));
        t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tables();
        assertThatThrownBy(() -> plan("x ARRAY<FLOAT>", "y ARRAY<FLOAT>, status INT", ", 'model' = 'mlp', 'slo-ms' = '5'", "x"))
                .satisfies(e -> assertThat(problem(e)).isEqualTo("output column 'status' is INT: STRING is expected"));
    }

    @Test
    void anSloColumnThatIsNotAnInputColumnIsNamed() {
        assertThatThrownBy(() -> plan("x ARRAY<FLOAT>", "y ARRAY<FLOAT>", ", 'model' = 'mlp', 'slo-column' = 'budget'", "x"))
                .satisfies(e -> assertThat(problem(e)).isEqualTo("'slo-column' = 'budget': no such input column (input: [x])"));
    }

    @Test
    void scalarColumnsThatDoNotMakeTheServedModelsInputAreCounted(@TempDir Path dir) throws Exception {
        // The built-in catalog's mlp takes FLOAT32[64]; a catalog file of one model of 3 inputs.
        assertThatThrownBy(() -> plan("a FLOAT, slo DOUBLE", "y ARRAY<FLOAT>", ", 'model' = 'mlp', 'slo-column' = 'slo'", "a, slo"))
                .satisfies(e -> assertThat(problem(e)).isEqualTo("the INPUT's 1 numeric columns do not make model 'mlp''s input FLOAT32[64] (64 elements)"));
        t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tables();
        assertThatThrownBy(() -> plan("x ARRAY<FLOAT>", "y ARRAY<FLOAT>", ", 'model' = 'nope', 'slo-ms' = '5', 'models-file' = '" + missing(dir) + "'", "x"))
                .satisfies(e -> assertThat(problem(e)).startsWith("'models-file': "));
    }

    private static String missing(Path dir) throws Exception {
        Path f = dir.resolve("models.json");
        Files.deleteIfExists(f);
        return f.toString();
    }
}
