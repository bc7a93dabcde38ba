// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "tmpfile.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char tmpfile_path[64];

int tmpfile_make(void **state)
{
	int fd;

	(void)state;
	strcpy(tmpfile_path, "/tmp/vpath-unitfile.XXXXXX");
	fd = mkstemp(tmpfile_path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int tmpfile_remove(void **state)
{
	(void)state;
	unlink(tmpfile_path);
	return 0;
}
