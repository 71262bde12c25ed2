/* A tiny consumer of an installed (or uninstalled) libmfusim: what a user's first program looks like. */
#include <mfusim.h>
#include <stdio.h>

int main(void) {
    if (mfusim_version_number() != MFUSIM_VERSION_NUMBER) {
        fprintf(stderr, "header %d, library %u\n", MFUSIM_VERSION_NUMBER, mfusim_version_number());
        return 1;
    }
    mfusim_options options;
    mfusim_options_init(&options, sizeof(options), NULL);
    options.model = "llama-3.1-8b-instruct";
    options.gpu = "H100";
    mfusim_error error;
    mfusim_estimator* estimator = NULL;
    if (mfusim_estimator_create(&options, &estimator, &error) != MFUSIM_OK) {
        fprintf(stderr, "create: %s\n", error.message);
        return 1;
    }
    mfusim_request decode = {1, 2048, 0, 0};
    double us = 0;
    mfusim_status status = mfusim_step_time(estimator, &decode, 1, &us, &error);
    mfusim_estimator_free(estimator);
    if (status != MFUSIM_OK || !(us > 0)) {
        fprintf(stderr, "step_time: status %d, %g us: %s\n", status, us, error.message);
        return 1;
    }
    printf("libmfusim %s: one decode step of llama-3.1-8b-instruct on H100 takes %.3f us\n", mfusim_version_string(),
           us);
    return 0;
}
