/*
 * tests/spank/mounts_judge.c - the reader of spank/container_mounts.c on
 * a real bundle, for tests/spank/mounts.sh: does the container of
 * BUNDLE/config.json show the host path PATH at its own place?
 *
 *   mounts_judge BUNDLE PATH      prints 1, 0 or the negative errno
 *
 * The root file system is config.json's root.path opened from the bundle,
 * as spank/container.c opens it; "-" as BUNDLE/config.json's root.path
 * missing judges without links.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "spank/container.h"

int main(int argc, char **argv)
{
	char path[4096];
	json_t *config, *root;
	int dfd, root_fd = -1, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: mounts_judge BUNDLE PATH\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/config.json", argv[1]);
	config = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	if (!config) {
		printf("-22\n");
		return 0;
	}
	root = json_object_get(json_object_get(config, "root"), "path");
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0 && json_is_string(root))
		root_fd = openat(dfd, json_string_value(root),
				 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = lagom_container_mounted_at(config, root_fd, argv[2]);
	printf("%d\n", rc);
	if (root_fd >= 0)
		close(root_fd);
	if (dfd >= 0)
		close(dfd);
	json_decref(config);
	return 0;
}
