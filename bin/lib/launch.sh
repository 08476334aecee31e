# What bin/kairos and bin/kairos-lab share, sourced by both: build the project when the build is
# missing or older than the sources, then run a main class on one module's class path.
#   kairos_launch MODULE MAIN [ARGS...]
# MODULE is the module whose class path the command line runs on (tools for bin/kairos, testbed for
# bin/kairos-lab); MAIN its entry class. .kairos/ holds run-time files, e.g. the configuration
# infra/cluster renders there, which are no sources.
kairos_launch() {
  local module="$1" main="$2"
  shift 2
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  local classpath_file="$root/$module/target/classpath.txt"
  if [ ! -f "$classpath_file" ] || [ -n "$(find "$root" \( -name '*.java' -o -name '*.avsc' -o -name 'pom.xml' -o -name '*.json' -o -name '*.properties' \) \
      -not -path '*/target/*' -not -path '*/.git/*' -not -path "$root/.kairos/*" -newer "$classpath_file" -print -quit)" ]; then
    echo "kairos: building the project (mvn -q -B -DskipTests package, without the distribution), once ..." >&2
    # jansi.noreset: Maven 3.8 writes colour resets even in batch mode into a pipe.
    (cd "$root" && MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true" mvn -q -B -Dstyle.color=never -DskipTests -Dassembly.skipAssembly=true package) >&2
    # Maven leaves an unchanged classpath file as it was; mark the build as fresh.
    touch "$classpath_file"
  fi
  # Flink on Java 17 reflects into these packages (its own launch scripts open the same ones).
  local opens=() p
  for p in java.base/java.lang java.base/java.lang.reflect java.base/java.util java.base/java.util.concurrent \
           java.base/java.util.concurrent.atomic java.base/java.io java.base/java.net java.base/java.nio \
           java.base/sun.nio.ch java.base/java.text java.base/java.time; do
    opens+=("--add-opens=$p=ALL-UNNAMED")
  done
  mkdir -p "$root/.kairos"
  local app="$root/$module/target/classes"
  local cds=()
  # Class-data sharing (KAIROS_CDS=on): the classes a run loaded, parsed and verified, kept in an
  # archive under the build output that later runs map instead of loading them again. The first
  # run after a build writes it as it exits; a build makes it stale (the JVM checks every jar of the
  # class path), and the next run writes it again. The archive takes jars only: the module's jar
  # stands in for its classes folder.
  if [ "${KAIROS_CDS:-off}" = on ]; then
    local jar
    jar="$(ls "$root/$module"/target/kairos-"$module"-*.jar 2>/dev/null | grep -v -e '-sources' -e '-tests' | head -1)"
    # The jar stands in for the classes folder only if no class was compiled after it was packaged.
    if [ -n "$jar" ] && [ -z "$(find "$root/$module/target/classes" -name '*.class' -newer "$jar" -print -quit)" ]; then
      app="$jar"
      local archive="$root/$module/target/kairos-cds.jsa"
      if [ -f "$archive" ] && [ "$archive" -nt "$classpath_file" ] && [ "$archive" -nt "$jar" ]; then
        cds=(-XX:SharedArchiveFile="$archive" -Xlog:cds=off -Xlog:cds+dynamic=off)
      else
        echo "kairos: writing the class-data sharing archive when this run exits ($archive)" >&2
        cds=(-XX:ArchiveClassesAtExit="$archive" -Xlog:cds=off -Xlog:cds+dynamic=off)
      fi
    fi
  fi
  # The demo runs a broker, the job and its load in one JVM for about a minute. On 4 cores or fewer
  # the C2 compiler spends a core on that code for most of the minute, the core the demo's own
  # threads need, and the demo meets fewer SLOs than it does once compiled; C1 alone compiles in a
  # fraction of the time. So the demo runs C1 only there, unless KAIROS_JAVA_OPTS says otherwise
  # (BENCHMARKS.md, "The demo"). Long runs (serve, the plain cluster's TaskManagers) keep the JVM's
  # tiered default; the HA cluster on as few cores compiles with C1 only too (infra/cluster).
  local jit=()
  if [ -z "${KAIROS_JAVA_OPTS:-}" ] && [ "${1:-}" = demo ] && [ "$(nproc 2>/dev/null || echo 8)" -le 4 ]; then
    jit=(-XX:TieredStopAtLevel=1)
  fi
  # KAIROS_CLASSPATH: jars of one's own on the class path, after Kairos' own: a scheduling policy
  # whose provider its jar lists (docs/write-a-policy.md).
  local extra="${KAIROS_CLASSPATH:+:$KAIROS_CLASSPATH}"
  exec java ${KAIROS_JAVA_OPTS:--Xmx6g} "${jit[@]}" "${cds[@]}" "${opens[@]}" -Dkairos.log.dir="$root/.kairos" -Dkairos.home="$root" \
    -cp "$app:$(cat "$classpath_file")$extra" "$main" "$@"
}
