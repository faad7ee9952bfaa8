/* version: what the build tells the module about itself: the database
 * schema version it needs (FS_SCHEMA_VERSION, the highest sql/NNNN_
 * number, passed by Makefile.apxs) and its release (FS_MODULE_VERSION,
 * from the file VERSION, generated into the build as fs_version.h). */
#ifndef FORMSVC_VERSION_H
#define FORMSVC_VERSION_H

#ifndef FS_SCHEMA_VERSION
#error "FS_SCHEMA_VERSION must be defined by the build"
#endif
#include "fs_version.h"

#endif
