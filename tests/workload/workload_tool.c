/*
 * tests/workload/workload_tool.c - drives workload/'s file reader from the
 * shell tests: workload_tool FILE prints "ok" or the reader's one-line
 * reason.  Exit status: 0 valid, 1 rejected, 2 usage.
 */
#include "config.h"

#include <stdio.h>

#include "workload/workload.h"

int main(int argc, char **argv)
{
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: workload_tool FILE\n");
		return 2;
	}
	if (lagom_workload_read_file(argv[1], &w, &err) != 0) {
		printf("%s\n", err.text);
		return 1;
	}
	lagom_workload_destroy(w);
	printf("ok\n");
	return 0;
}
