/**
 * The progress line that the testbed's commands draw ({@code loadgen}, {@code collect}, the demo,
 * the payload sweep). A package of its own, below every package of commands, so that the command
 * line's root (which registers {@code demo} and {@code bench}) and those commands do not depend on
 * each other.
 */
package io.kairos.tools.progress;
