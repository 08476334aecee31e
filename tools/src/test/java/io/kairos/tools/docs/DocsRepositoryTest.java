package io.kairos.tools.docs;

import org.junit.jupiter.api.Test;

import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The repository's own documentation passes its check: what {@code bin/kairos docs check} runs in CI. */
class DocsRepositoryTest {
    @Test
    void theRepositorysLinksResolveAndTheReferenceCoversTheCommandLine() {
        DocsCheck.Result result = DocsCheck.check(DocsCliReferenceTest.repository(), DocsCliReferenceTest.kairos());
        assertThat(result.files()).isGreaterThanOrEqualTo(3);
        assertThat(result.problems())
                .as("%s:%n%s%n(bin/kairos docs check prints the same)", result.summary(),
                        result.problems().stream().map(Object::toString).collect(Collectors.joining("\n")))
                .isEmpty();
    }
}
