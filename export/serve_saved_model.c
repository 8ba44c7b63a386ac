/* Runs a signature of a tf_wordpiece SavedModel from C, with no Python in the process.
 *
 * Links against the TensorFlow C API that every TensorFlow wheel ships
 * (libtensorflow_cc.so.2 and libtensorflow_framework.so.2, headers in
 * tensorflow/include); the same code links against the libtensorflow C archive.
 *
 *   TF=$(python -c "import tensorflow as tf; print(tf.sysconfig.get_lib())")
 *   gcc export/serve_saved_model.c -I"$TF/include" -L"$TF" -l:libtensorflow_cc.so.2 \
 *       -l:libtensorflow_framework.so.2 -Wl,-rpath,"$TF" -o serve_saved_model
 *   ./serve_saved_model MODEL_DIR 1 serving_default_strings:0 \
 *       2 StatefulPartitionedCall:0 StatefulPartitionedCall:1  2 "Hello TensorFlow!" "Olá"
 *
 * Arguments: the SavedModel folder (loaded with tag "serve"), the signature's
 * input tensors, its output tensors (names as `saved_model_cli show --all`
 * prints them), then the strings: every input receives the same batch.
 * Prints one line per output: `name rank dims... : values...` (int32/int64,
 * bool as 0/1, float32 with 9 significant digits).
 *
 * With `--repeat N` first (`./serve_saved_model --repeat 20 MODEL_DIR ...`),
 * the signature runs N more times and stderr gets the timings:
 * `load_ms X` (TF_LoadSessionFromSavedModel) and `run_ms FIRST R1 ... RN`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/tf_tstring.h"

static void check(TF_Status *status, const char *what) {
  if (TF_GetCode(status) != TF_OK) {
    fprintf(stderr, "%s: %s\n", what, TF_Message(status));
    exit(1);
  }
}

static TF_Output tensor_named(TF_Graph *graph, const char *name) {
  char op_name[512];
  snprintf(op_name, sizeof op_name, "%s", name);
  int index = 0;
  char *colon = strrchr(op_name, ':');
  if (colon != NULL) {
    *colon = '\0';
    index = atoi(colon + 1);
  }
  TF_Operation *op = TF_GraphOperationByName(graph, op_name);
  if (op == NULL) {
    fprintf(stderr, "no tensor %s in the graph (see saved_model_cli show --all)\n", name);
    exit(1);
  }
  TF_Output output = {op, index};
  return output;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  int arg = 1;
  int repeat = 0;
  if (argc > 2 && strcmp(argv[1], "--repeat") == 0) {
    repeat = atoi(argv[2]);
    arg = 3;
  }
  if (argc - arg < 4) {
    fprintf(stderr, "usage: %s [--repeat N] MODEL_DIR N_INPUTS INPUT... N_OUTPUTS OUTPUT... N_STRINGS STRING...\n",
            argv[0]);
    return 2;
  }
  const char *model_dir = argv[arg++];
  int n_inputs = atoi(argv[arg++]);
  char **input_names = argv + arg;
  arg += n_inputs;
  int n_outputs = atoi(argv[arg++]);
  char **output_names = argv + arg;
  arg += n_outputs;
  int n_strings = atoi(argv[arg++]);
  char **strings = argv + arg;
  if (arg + n_strings != argc) {
    fprintf(stderr, "expected %d strings, got %d\n", n_strings, argc - arg);
    return 2;
  }

  TF_Status *status = TF_NewStatus();
  TF_Graph *graph = TF_NewGraph();
  TF_SessionOptions *options = TF_NewSessionOptions();
  const char *tags[] = {"serve"};
  double started = now_ms();
  TF_Session *session = TF_LoadSessionFromSavedModel(options, NULL, model_dir, tags, 1, graph, NULL, status);
  check(status, "TF_LoadSessionFromSavedModel");
  if (repeat > 0) fprintf(stderr, "load_ms %.3f\n", now_ms() - started);

  int64_t dims[1] = {n_strings};
  TF_Tensor *batch = TF_AllocateTensor(TF_STRING, dims, 1, (size_t)n_strings * sizeof(TF_TString));
  TF_TString *data = (TF_TString *)TF_TensorData(batch);
  for (int i = 0; i < n_strings; i++) {
    TF_StringInit(&data[i]);
    TF_StringCopy(&data[i], strings[i], strlen(strings[i]));
  }

  TF_Output *inputs = calloc(n_inputs, sizeof *inputs);
  TF_Tensor **input_values = calloc(n_inputs, sizeof *input_values);
  for (int i = 0; i < n_inputs; i++) {
    inputs[i] = tensor_named(graph, input_names[i]);
    input_values[i] = batch;
  }
  TF_Output *outputs = calloc(n_outputs, sizeof *outputs);
  TF_Tensor **output_values = calloc(n_outputs, sizeof *output_values);
  for (int i = 0; i < n_outputs; i++) outputs[i] = tensor_named(graph, output_names[i]);

  /* The times go out as one line after the runs: TensorFlow may log to stderr during a run, which would
     split a line written piece by piece. */
  double *run_ms = calloc((size_t)repeat + 1, sizeof *run_ms);
  for (int r = 0; r <= repeat; r++) {
    if (r > 0) {
      for (int i = 0; i < n_outputs; i++) TF_DeleteTensor(output_values[i]);
    }
    started = now_ms();
    TF_SessionRun(session, NULL, inputs, input_values, n_inputs, outputs, output_values, n_outputs, NULL, 0, NULL,
                  status);
    check(status, "TF_SessionRun");
    run_ms[r] = now_ms() - started;
  }
  if (repeat > 0) {
    size_t size = 16 + 32 * ((size_t)repeat + 1); /* " %.3f" of a time under 1e20 ms fits in 32 bytes */
    char *line = malloc(size);
    size_t used = (size_t)snprintf(line, size, "run_ms");
    for (int r = 0; r <= repeat; r++) used += (size_t)snprintf(line + used, size - used, " %.3f", run_ms[r]);
    fprintf(stderr, "%s\n", line);
    free(line);
  }
  free(run_ms);

  for (int i = 0; i < n_outputs; i++) {
    TF_Tensor *t = output_values[i];
    int rank = TF_NumDims(t);
    int64_t count = 1;
    printf("%s %d", output_names[i], rank);
    for (int d = 0; d < rank; d++) {
      printf(" %lld", (long long)TF_Dim(t, d));
      count *= TF_Dim(t, d);
    }
    printf(" :");
    for (int64_t k = 0; k < count; k++) {
      if (TF_TensorType(t) == TF_INT64) {
        printf(" %lld", (long long)((int64_t *)TF_TensorData(t))[k]);
      } else if (TF_TensorType(t) == TF_INT32) {
        printf(" %d", ((int32_t *)TF_TensorData(t))[k]);
      } else if (TF_TensorType(t) == TF_FLOAT) {
        printf(" %.9g", ((float *)TF_TensorData(t))[k]);
      } else if (TF_TensorType(t) == TF_BOOL) {
        printf(" %d", ((unsigned char *)TF_TensorData(t))[k] ? 1 : 0);
      } else {
        fprintf(stderr, "%s: dtype %d is not int32, int64, float32 or bool\n", output_names[i], TF_TensorType(t));
        return 1;
      }
    }
    printf("\n");
    TF_DeleteTensor(t);
  }

  for (int i = 0; i < n_strings; i++) TF_StringDealloc(&data[i]);
  TF_DeleteTensor(batch);
  TF_CloseSession(session, status);
  check(status, "TF_CloseSession");
  TF_DeleteSession(session, status);
  TF_DeleteSessionOptions(options);
  TF_DeleteGraph(graph);
  TF_DeleteStatus(status);
  free(inputs);
  free(input_values);
  free(outputs);
  free(output_values);
  return 0;
}
