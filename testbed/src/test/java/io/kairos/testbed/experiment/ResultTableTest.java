package io.kairos.testbed.experiment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResultTableTest {

    static ResultTable table() {
        ResultTable t = new ResultTable(List.of("rate", "policy", "seed", "slo_attainment"));
        t.add(List.of("600", "fifo", "1", "0.5"));
        t.add(List.of("600", "fifo", "2", "0.9"));
        t.add(List.of("600", "fifo", "3", "0.7"));
        t.add(List.of("600", "edf", "1", "0.2"));
        t.add(List.of("600", "edf", "2", "0.4"));
        t.add(List.of("1200", "edf", "1", ""));
        return t;
    }

    @Test
    void medianOverTheMatchingRows() {
        ResultTable t = table();
        assertThat(t.median("slo_attainment", Map.of("rate", "600", "policy", "fifo"))).isEqualTo(0.7);
        assertThat(t.median("slo_attainment", Map.of("policy", "edf"))).isEqualTo(0.3, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(t.median("slo_attainment", Map.of("rate", "1200"))).isNaN(); // empty value
        assertThat(t.median("slo_attainment", Map.of("rate", "2400"))).isNaN(); // no row
    }

    @Test
    void distinctValuesInOrderOfFirstAppearance() {
        ResultTable t = table();
        assertThat(t.distinct("policy")).containsExactly("fifo", "edf");
        assertThat(t.distinct(List.of("rate", "policy"))).containsExactly(List.of("600", "fifo"), List.of("600", "edf"), List.of("1200", "edf"));
    }

    @Test
    void writtenAndReadBack(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("r.csv");
        table().write(csv);
        assertThat(Files.readAllLines(csv).get(0)).isEqualTo("rate,policy,seed,slo_attainment");
        ResultTable back = ResultTable.read(csv);
        assertThat(back.columns()).isEqualTo(table().columns());
        assertThat(back.rows()).isEqualTo(table().rows());
    }

    @Test
    void mistakesAreNamed(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> table().index("p99")).hasMessageContaining("no column 'p99'");
        assertThatThrownBy(() -> table().add(List.of("1"))).hasMessageContaining("row has 1 values for 4 columns");
        Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "a,b\n1,2\n3\n");
        assertThatThrownBy(() -> ResultTable.read(bad)).hasMessageContaining("line 3 has 1 fields, the header 2");
    }
}
