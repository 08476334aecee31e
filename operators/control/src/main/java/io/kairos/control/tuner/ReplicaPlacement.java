package io.kairos.control.tuner;

import io.kairos.core.device.DeviceSlots;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which device slots of the job's pool hold each stage's replicas, as the tuner grows and shrinks
 * them: a stage's replicas are devices of its hardware type, no device serves two stages, and a
 * device that holds nothing is released (it costs nothing). A stage that grows takes the free
 * slots of its type lowest first; one that shrinks gives back the slots it took last, so the
 * replicas that stay keep their queues' work and their loaded model. When the pool has no free
 * slot of the type, the stage grows as far as it can ({@link #resize} says how far).
 *
 * <p>Plain Java; not thread-safe.
 */
public final class ReplicaPlacement {
    private final DeviceSlots pool;
    private final List<String> types;
    private final List<List<Integer>> slots = new ArrayList<>();

    /**
     * @param stageTypes each stage's hardware type, in the plan's order
     * @param initial    each stage's slots now (the planned placement: {@code PipelineDecisions.devices})
     * @throws IllegalArgumentException in one line for a slot of the wrong type, out of the pool, or in two stages
     */
    public ReplicaPlacement(DeviceSlots pool, List<String> stageTypes, List<List<Integer>> initial) {
        if (stageTypes.size() != initial.size()) throw new IllegalArgumentException(initial.size() + " placements for " + stageTypes.size() + " stages");
        this.pool = pool;
        this.types = List.copyOf(stageTypes);
        Set<Integer> taken = new HashSet<>();
        for (int s = 0; s < initial.size(); s++) {
            for (int slot : initial.get(s)) {
                if (slot < 0 || slot >= pool.count()) throw new IllegalArgumentException("stage " + s + ": device " + slot + " is not in the pool of " + pool.count());
                if (!pool.typeOf(slot).equals(types.get(s))) {
                    throw new IllegalArgumentException("stage " + s + ": device " + slot + " is a " + pool.typeOf(slot) + ", the stage runs on " + types.get(s));
                }
                if (!taken.add(slot)) throw new IllegalArgumentException("device " + slot + " is placed in two stages");
            }
            slots.add(new ArrayList<>(initial.get(s)));
        }
    }

    /** The slots of stage {@code s}, in the order it took them. */
    public List<Integer> slots(int s) {
        return List.copyOf(slots.get(s));
    }

    /** How many replicas stage {@code s} has. */
    public int replicas(int s) {
        return slots.get(s).size();
    }

    /** The free slots of {@code type}, lowest first. */
    public List<Integer> free(String type) {
        Set<Integer> taken = new HashSet<>();
        for (List<Integer> l : slots) taken.addAll(l);
        List<Integer> free = new ArrayList<>();
        for (int slot : pool.slotsOf(type)) if (!taken.contains(slot)) free.add(slot);
        return free;
    }

    /**
     * Gives stage {@code s} {@code k} replicas (at least 1), or as many as the free slots of its
     * type allow; returns its slots from now on.
     */
    public List<Integer> resize(int s, int k) {
        if (k < 1) throw new IllegalArgumentException("a stage keeps at least one replica, asked for " + k);
        List<Integer> mine = slots.get(s);
        if (k < mine.size()) {
            mine.subList(k, mine.size()).clear();
        } else if (k > mine.size()) {
            for (int slot : free(types.get(s))) {
                if (mine.size() == k) break;
                mine.add(slot);
            }
        }
        return List.copyOf(mine);
    }

    /** The devices held by any stage. */
    public int devicesHeld() {
        int n = 0;
        for (List<Integer> l : slots) n += l.size();
        return n;
    }
}
