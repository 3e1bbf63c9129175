/*
 * plugstack/plugstack.c - parse lagom's plugstack.conf arguments (see plugstack.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugstack/plugstack.h"

void lagom_config_defaults(struct lagom_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->default_mode = LAGOM_MODE_OFF;
	cfg->comment = LAGOM_COMMENT_YES;
	strcpy(cfg->profile_dir, LAGOM_CONFIG_DEFAULT_PROFILE_DIR);
	strcpy(cfg->tuner, LAGOM_CONFIG_DEFAULT_TUNER);
	lagom_measure_config_defaults(&cfg->measure);
}

int lagom_mode_parse(const char *word, enum lagom_mode *mode)
{
	static const struct {
		const char *word;
		enum lagom_mode mode;
	} words[] = {
		{ "off", LAGOM_MODE_OFF },
		{ "auto", LAGOM_MODE_AUTO },
		{ "explain", LAGOM_MODE_EXPLAIN },
		{ "measure", LAGOM_MODE_MEASURE },
	};

	if (!word)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcmp(word, words[i].word) == 0) {
			*mode = words[i].mode;
			return 0;
		}
	}
	return -EINVAL;
}

const char *lagom_mode_name(enum lagom_mode mode)
{
	switch (mode) {
	case LAGOM_MODE_OFF:
		return "off";
	case LAGOM_MODE_AUTO:
		return "auto";
	case LAGOM_MODE_EXPLAIN:
		return "explain";
	case LAGOM_MODE_MEASURE:
		return "measure";
	case LAGOM_MODE_CONTROL:
		return "control";
	case LAGOM_MODE_REVERT:
		return "revert";
	}
	return "?";
}

bool lagom_config_valid_var_name(const char *name)
{
	if (!name || !*name || (*name >= '0' && *name <= '9'))
		return false;
	for (const char *p = name; *p; p++) {
		char c = *p;
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

bool lagom_varlist_has(const struct lagom_varlist *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (strcmp(list->name[i], name) == 0)
			return true;
	return false;
}

static int copy_value(char *dst, size_t len, const char *key, const char *value,
		      struct lagom_error *err)
{
	size_t n = strlen(value);

	if (n == 0)
		return lagom_errprintf(err, EINVAL, "%s= needs a value", key);
	if (n >= len)
		return lagom_errprintf(err, ERANGE,
				       "%s= is too long (%zu bytes, max %zu)",
				       key, n, len - 1);
	memcpy(dst, value, n + 1);
	return 0;
}

/* Append the comma-separated names of value to list (duplicates kept once). */
static int parse_varlist(struct lagom_varlist *list, const char *key,
			 const char *value, struct lagom_error *err)
{
	const char *p = value;

	if (!*value)
		return lagom_errprintf(err, EINVAL, "%s= needs a variable name",
				       key);
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char name[LAGOM_CONFIG_NAME_MAX];

		if (n == 0 || n >= sizeof(name))
			return lagom_errprintf(err, n ? ERANGE : EINVAL,
					       "%s=%s: bad variable name", key,
					       value);
		memcpy(name, p, n);
		name[n] = '\0';
		if (!lagom_config_valid_var_name(name))
			return lagom_errprintf(
				err, EINVAL, "%s=: '%s' is not a variable name",
				key, name);
		if (!lagom_varlist_has(list, name)) {
			if (list->n == LAGOM_CONFIG_VARS_MAX)
				return lagom_errprintf(
					err, ERANGE,
					"%s=: more than %d variables", key,
					LAGOM_CONFIG_VARS_MAX);
			strcpy(list->name[list->n++], name);
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int parse_bool_word(const char *value, bool *out)
{
	static const char *const yes[] = { "yes", "1", "true", "y", "on" };
	static const char *const no[] = { "no", "0", "false", "n", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(value, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(value, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_comment(struct lagom_config *cfg, const char *value,
			 struct lagom_error *err)
{
	bool on;

	if (strcmp(value, "admin") == 0) {
		cfg->comment = LAGOM_COMMENT_ADMIN;
		return 0;
	}
	if (parse_bool_word(value, &on) < 0)
		return lagom_errprintf(err, EINVAL,
				       "comment=%s: expected yes, no or admin",
				       value);
	cfg->comment = on ? LAGOM_COMMENT_YES : LAGOM_COMMENT_NO;
	return 0;
}

static int parse_step_query(struct lagom_config *cfg, const char *value,
			    struct lagom_error *err)
{
	if (strcmp(value, "auto") != 0 && strcmp(value, "always") != 0)
		return lagom_errprintf(err, EINVAL,
				       "step_query=%s: expected auto or always",
				       value);
	cfg->step_query_always = strcmp(value, "always") == 0;
	return 0;
}

static int parse_slurm_user(struct lagom_config *cfg, const char *value,
			    struct lagom_error *err)
{
	char *end = NULL;
	unsigned long uid;
	int rc = copy_value(cfg->slurm_user, sizeof(cfg->slurm_user),
			    "slurm_user", value, err);

	if (rc < 0)
		return rc;
	cfg->slurm_uid_valid = false;
	if (value[0] >= '0' && value[0] <= '9') {
		errno = 0;
		uid = strtoul(value, &end, 10);
		if (errno || *end || uid >= 0xffffffffUL)
			return lagom_errprintf(err, EINVAL,
					       "slurm_user=%s: bad uid", value);
		cfg->slurm_uid_valid = true;
		cfg->slurm_uid = (unsigned int)uid;
	}
	return 0;
}

static int parse_verbose(struct lagom_config *cfg, const char *value,
			 struct lagom_error *err)
{
	char *end = NULL;
	long level;
	bool on;

	if (!value) {
		cfg->verbose = 1;
		return 0;
	}
	if (parse_bool_word(value, &on) == 0 &&
	    !(value[0] >= '0' && value[0] <= '9')) {
		cfg->verbose = on;
		return 0;
	}
	errno = 0;
	level = strtol(value, &end, 10);
	if (errno || !*value || *end || level < 0 || level > 9)
		return lagom_errprintf(err, EINVAL,
				       "verbose=%s: expected 0..9, yes or no",
				       value);
	cfg->verbose = (int)level;
	return 0;
}

static int parse_path_or_none(char *dst, const char *key, const char *value,
			      struct lagom_error *err)
{
	if (strcmp(value, "none") == 0) {
		dst[0] = '\0';
		return 0;
	}
	return copy_value(dst, LAGOM_CONFIG_PATH_MAX, key, value, err);
}

/* One key=value word.  key points at the word; value after '=' or NULL. */
static int parse_one(struct lagom_config *cfg, const char *key, size_t keylen,
		     const char *value, struct lagom_error *err)
{
#define KEY_IS(k) (keylen == sizeof(k) - 1 && strncmp(key, k, keylen) == 0)
	if (KEY_IS("verbose"))
		return parse_verbose(cfg, value, err);
	if (lagom_measure_config_key(key, keylen))
		return lagom_measure_config_parse(&cfg->measure, key, keylen,
						  value, err);
	if (!value)
		return lagom_errprintf(
			err, EINVAL,
			"unknown argument '%s' (expected key=value)", key);
	if (KEY_IS("default")) {
		/* measure is a user's own A/B, not a site default */
		if (lagom_mode_parse(value, &cfg->default_mode) < 0 ||
		    cfg->default_mode == LAGOM_MODE_MEASURE)
			return lagom_errprintf(
				err, EINVAL,
				"default=%s: expected off, auto or explain",
				value);
		return 0;
	}
	if (KEY_IS("profile_dir"))
		return copy_value(cfg->profile_dir, sizeof(cfg->profile_dir),
				  "profile_dir", value, err);
	if (KEY_IS("tuner"))
		return parse_path_or_none(cfg->tuner, "tuner", value, err);
	if (KEY_IS("topology_conf")) {
		cfg->topology_none = strcmp(value, "none") == 0;
		return parse_path_or_none(cfg->topology_conf, "topology_conf",
					  value, err);
	}
	if (KEY_IS("comment"))
		return parse_comment(cfg, value, err);
	if (KEY_IS("forbid"))
		return parse_varlist(&cfg->forbid, "forbid", value, err);
	if (KEY_IS("override"))
		return parse_varlist(&cfg->override, "override", value, err);
	if (KEY_IS("slurm_user"))
		return parse_slurm_user(cfg, value, err);
	if (KEY_IS("step_query"))
		return parse_step_query(cfg, value, err);
	if (KEY_IS("calibration_user"))
		return copy_value(cfg->calibration_user,
				  sizeof(cfg->calibration_user),
				  "calibration_user", value, err);
#undef KEY_IS
	return lagom_errprintf(err, EINVAL, "unknown argument '%.*s'",
			       (int)keylen, key);
}

static int check_conflicts(const struct lagom_config *cfg,
			   struct lagom_error *err)
{
	for (size_t i = 0; i < cfg->forbid.n; i++)
		if (lagom_varlist_has(&cfg->override, cfg->forbid.name[i]))
			return lagom_errprintf(
				err, EINVAL,
				"%s is both in forbid= and in override=",
				cfg->forbid.name[i]);
	return 0;
}

int lagom_config_parse(int argc, char *const argv[], struct lagom_config *out,
		       struct lagom_error *err)
{
	struct lagom_config cfg;
	int rc;

	lagom_config_defaults(&cfg);
	for (int i = 0; i < argc; i++) {
		const char *word = argv[i];
		const char *eq;

		if (!word)
			return lagom_errprintf(err, EINVAL,
					       "argument %d is NULL", i);
		eq = strchr(word, '=');
		rc = parse_one(&cfg, word,
			       eq ? (size_t)(eq - word) : strlen(word),
			       eq ? eq + 1 : NULL, err);
		if (rc < 0)
			return rc;
	}
	rc = check_conflicts(&cfg, err);
	if (rc < 0)
		return rc;
	*out = cfg;
	return 0;
}
