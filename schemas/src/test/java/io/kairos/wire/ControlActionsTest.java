package io.kairos.wire;

import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.BinaryEncoder;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actions of a control decision, as libraries that pick a union branch by a map's field names
 * see them, and as a new job reads the decisions that an older one wrote to the compacted topic.
 */
class ControlActionsTest {
    private static final Schema ACTIONS = ControlDecision.getClassSchema().getField("action").schema();

    /** The control decision's schema before AssignGroup had a field of its own (what older versions wrote). */
    private static Schema firstVersion() throws IOException {
        try (InputStream in = ControlActionsTest.class.getResourceAsStream("/evolution/ControlDecision-1.avsc")) {
            return new Schema.Parser().parse(in);
        }
    }

    @Test
    void noActionsFieldsAreASubsetOfAnothers() {
        // python-avro writes a map as the first record of the union whose field names include all
        // of the map's keys: a map of every field of one action must fit no other action.
        List<Schema> actions = ACTIONS.getTypes();
        assertThat(actions).hasSizeGreaterThanOrEqualTo(3);
        for (Schema a : actions) {
            for (Schema b : actions) {
                if (a == b) continue;
                assertThat(fieldNames(b).containsAll(fieldNames(a)))
                        .as("the fields of %s, %s, all belong to %s too", a.getName(), fieldNames(a), b.getName()).isFalse();
            }
        }
    }

    @Test
    void theFirstVersionOfTheActionsFailedThatRule() throws IOException {
        // What the rule guards against, shown on the schema that had the problem.
        Schema old = firstVersion().getField("action").schema();
        assertThat(fieldNames(old.getTypes().get(0))).containsAll(fieldNames(old.getTypes().get(2)));
    }

    @Test
    void everyActionOfTheFirstVersionKeepsItsPlaceInTheUnion() throws IOException {
        // The job reads the topic as plain binary of its own schema: a union branch is its index,
        // so a new action goes at the end, and an old record still names the action it was.
        List<Schema> old = firstVersion().getField("action").schema().getTypes();
        List<Schema> now = ACTIONS.getTypes();
        for (int i = 0; i < old.size(); i++) {
            assertThat(now.get(i).getFullName()).as("action %d", i).isEqualTo(old.get(i).getFullName());
        }
    }

    @Test
    void theWireFormatIsUnchangedBothWays() throws IOException {
        Schema old = firstVersion();
        Schema now = ControlDecision.getClassSchema();
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(now, old).getType())
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        AvroCodec<ControlDecision> codec = AvroCodec.of(ControlDecision.class);
        for (ControlDecision decision : decisions()) {
            byte[] written = codec.encode(decision);
            // An older job's bytes: the same decision written with the first schema, field by field.
            byte[] olderJob = writeGeneric(old, decision);
            assertThat(olderJob).as("%s written by an older job", decision.getAction().getClass().getSimpleName()).isEqualTo(written);
            // A new job reads them as plain binary of its own schema, as it reads the topic.
            assertThat(codec.decode(olderJob)).isEqualTo(decision);
            // And an older job, should it read what a new one wrote, gets the same action (of those it knows).
            GenericRecord readByOlder = new GenericDatumReader<GenericRecord>(old).read(null, DecoderFactory.get().binaryDecoder(written, null));
            GenericRecord action = (GenericRecord) readByOlder.get("action");
            assertThat(action.getSchema().getName()).isEqualTo(decision.getAction().getClass().getSimpleName());
            for (Schema.Field f : action.getSchema().getFields()) {
                assertThat(String.valueOf(action.get(f.name()))).as(f.name())
                        .isEqualTo(String.valueOf(((GenericRecord) decision.getAction()).get(f.name())));
            }
        }
    }

    private static List<ControlDecision> decisions() {
        return List.of(
                decision(SetPolicy.newBuilder().setGroup("g").setModel("m").setPolicy("flex").setParams(Map.of("lambda", "2")).build()),
                decision(SetPlacement.newBuilder().setGroup("g").setDevices(List.of(
                        DevicePlacement.newBuilder().setDevice(1).setModels(List.of("a", "b")).build())).build()),
                decision(AssignGroup.newBuilder().setModel("resnet50").setGroup("vision").build()));
    }

    private static ControlDecision decision(Object action) {
        return ControlDecision.newBuilder().setVersion(7).setIssuedAtMicros(1_700_000_000_000_000L).setIssuedBy("planner")
                .setKey("k").setAction(action).build();
    }

    /** The decision as a job built on {@code schema} writes it: a generic record of that schema, filled field by field by name. */
    private static byte[] writeGeneric(Schema schema, ControlDecision decision) throws IOException {
        GenericRecord record = new GenericData.Record(schema);
        for (String f : List.of("version", "issued_at_micros", "issued_by", "key")) record.put(f, decision.get(f));
        GenericRecord specificAction = (GenericRecord) decision.getAction();
        Schema branch = schema.getField("action").schema().getTypes().stream()
                .filter(t -> t.getName().equals(specificAction.getSchema().getName())).findFirst().orElseThrow();
        GenericRecord action = new GenericData.Record(branch);
        for (Schema.Field f : branch.getFields()) action.put(f.name(), specificAction.get(f.name()));
        record.put("action", action);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static Set<String> fieldNames(Schema record) {
        return record.getFields().stream().map(Schema.Field::name).collect(Collectors.toCollection(HashSet::new));
    }
}
