/*
 * tests/topology/test_nccl_topo.c - the NCCL topology file reader on small
 * hand-written inputs: NVLink elements, and malformed files that must fail
 * with a message naming the line, never crash.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "topology/topology.h"

static int parse(const char *xml, struct lagom_node_topo *t,
		 struct lagom_error *err)
{
	return lagom_topo_parse_nccl(xml, strlen(xml), t, err);
}

/* Two GPUs joined by 12 links and each with 6 links to NVSwitches. */
static const char nvlink_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<system version=\"1\">\n"
	"  <cpu numaid=\"1\">\n"
	"    <pci busid=\"0000:01:00.0\" class=\"0x030200\" vendor=\"0x10de\""
	" device=\"0x2330\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
	"      <gpu dev=\"0\" sm=\"90\">\n"
	"        <nvlink target=\"0000:02:00.0\" count=\"12\" "
	"tclass=\"0x030200\"/>\n"
	"        <nvlink target=\"0000:ff:00.0\" count=\"6\" "
	"tclass=\"0x068000\"/>\n"
	"      </gpu>\n"
	"    </pci>\n"
	"    <pci busid='0000:02:00.0' class='0x030200'>\n"
	"      <gpu dev='1' sm='90'><nvlink target='0000:ff:00.0' count='6' "
	"tclass='0x068000'/></gpu>\n"
	"    </pci>\n"
	"    <pci busid=\"0000:03:00.0\" class=\"0x020700\" vendor=\"0x15b3\">\n"
	"      <nic><net name=\"mlx5_0\" speed=\"400000\"/>"
	"<net name=\"mlx5_1\" speed=\"400000\"/></nic>\n"
	"    </pci>\n"
	"    <unknownthing a=\"b\"><pci busid=\"0000:09:00.0\" "
	"class=\"0x030200\"/></unknownthing>\n"
	"  </cpu>\n"
	"</system>\n";

static void test_nvlink(void **state)
{
	struct lagom_node_topo *t = malloc(sizeof(*t));
	struct lagom_error err = { 0 };

	assert_int_equal(parse(nvlink_xml, t, &err), 0);
	assert_int_equal(t->gpus_per_node,
			 2); /* the one under <unknownthing> is not */
	assert_true(t->has_nvlink);
	assert_int_equal(t->nvlink_links[0][1], 12);
	assert_int_equal(t->nvlink_links[1][0], 12);
	assert_int_equal(t->gpus[0].nvswitch_links, 6);
	assert_int_equal(t->gpus[1].nvswitch_links, 6);
	assert_string_equal(t->gpus[0].model, "H100-SXM5-80GB");
	assert_int_equal(t->gpus[0].numa_node, 1);
	assert_int_equal(t->nnics, 2);
	assert_true(t->nics[1].speed_Bps == 400e9 / 8);
	assert_int_equal(t->nics[1].kind, LAGOM_NIC_IB);
	assert_string_equal(t->nics[1].busid, "0000:03:00.0");
	/* No PCIe switch: GPU and NICs meet on NUMA node 1. */
	assert_int_equal(t->gpus[0].nic_affinity, LAGOM_AFF_NUMA);
	assert_int_equal(lagom_topo_nics_per_gpu(t, 0), 2);
	free(t);
}

struct bad {
	const char *xml;
	int rc;
	const char *says; /* part of the message */
};

static const struct bad bad_inputs[] = {
	{ "", -EINVAL, "no <system>" },
	{ "   \n  ", -EINVAL, "no <system>" },
	{ "garbage", -EINVAL, "line 1: text outside tags" },
	{ "<cpu/>", -EINVAL, "root element must be <system>" },
	{ "<system>", -EINVAL, "unclosed" },
	{ "<system></cpu>", -EINVAL, "does not match" },
	{ "<system/><system/>", -EINVAL, "more than one root" },
	{ "<system>\n\n<cpu numaid=1/></system>", -EINVAL,
	  "line 3: attribute value must be quoted" },
	{ "<system><cpu numaid=\"64\"/></system>", -EINVAL, "bad number" },
	{ "<system><cpu numaid=\"-1\"/></system>", -EINVAL, "bad number" },
	{ "<system><pci busid=\"0000:01:00.0\" class=\"0x1000000\"/></system>",
	  -EINVAL, "bad number" },
	{ "<system><pci busid=\"0000:01:00.0\" "
	  "class=\"0x99999999999999999999999\"/></system>",
	  -EINVAL, "bad number" },
	{ "<system><pci class=\"0x030200\"/></system>", -EINVAL, "busid" },
	{ "<system><pci busid=\"0000:01:00.0:00000000000000\"/></system>",
	  -EINVAL, "busid" },
	{ "<system><pci busid=\"0000:01:00.0\" link_speed=\"fast\"/></system>",
	  -EINVAL, "link_speed" },
	{ "<system><gpu dev=\"0\"/></system>", -EINVAL, "outside <pci>" },
	{ "<system><net name=\"x\"/></system>", -EINVAL, "outside" },
	{ "<system><!-- open comment </system>", -EINVAL, "unterminated" },
	{ "<system a=\"x&amp;y\"/>", -EINVAL, "unsupported character" },
	{ "<system a=\"unterminated/>", -EINVAL, "unterminated" },
	{ "<!DOCTYPE x><system/>", -EINVAL, "DOCTYPE" },
	{ "<system/>trailing", -EINVAL, "text outside tags" },
	{ "<system><system/></system>", -EINVAL, "inside another" },
	{ "<1system/>", -EINVAL, "expected a name" },
	{ "<system", -EINVAL, "unterminated tag" },
	{ "<system a=\"1\" a2 =/>", -EINVAL, "quoted" },
	{ "<system><pci busid=\"0000:01:00.0\" class=\"0x030200\"><gpu "
	  "sm=\"99999\"/></pci></system>",
	  -EINVAL, "bad number" },
	{ "<system/><?xml version=\"1.0\"?>", -EINVAL, "after the root" },
};

static void test_malformed(void **state)
{
	struct lagom_node_topo *t = malloc(sizeof(*t));

	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]);
	     i++) {
		struct lagom_error err = { 0 };
		int rc;

		t->gpus_per_node = 99;
		rc = parse(bad_inputs[i].xml, t, &err);
		if (rc != bad_inputs[i].rc ||
		    !strstr(err.text, bad_inputs[i].says))
			fail_msg("input %zu '%s': rc %d, message '%s'", i,
				 bad_inputs[i].xml, rc, err.text);
		assert_int_equal(t->gpus_per_node,
				 99); /* untouched on failure */
	}
	free(t);
}

static char *repeat(const char *head, const char *unit, size_t n,
		    const char *tail)
{
	size_t len = strlen(head) + strlen(unit) * n + strlen(tail) + 1;
	char *s = malloc(len), *p = s;

	assert_non_null(s);
	p = stpcpy(p, head);
	for (size_t i = 0; i < n; i++)
		p = stpcpy(p, unit);
	strcpy(p, tail);
	return s;
}

static void test_caps(void **state)
{
	struct lagom_node_topo *t = malloc(sizeof(*t));
	struct lagom_error err = { 0 };
	char *deep = repeat("<system>", "<a>", LAGOM_NCCL_TOPO_MAX_DEPTH, "");
	char *gpus = repeat("<system>",
			    "<pci busid=\"0000:01:00.0\" class=\"0x030200\"/>",
			    LAGOM_TOPO_MAX_GPUS + 1, "</system>");

	char *bridges = repeat(
		"<system>", "<pci busid=\"0000:01:00.0\" class=\"0x060400\">",
		LAGOM_TOPO_PCIE_DEPTH + 2, "");

	assert_int_equal(parse(deep, t, &err), -EINVAL);
	assert_non_null(strstr(err.text, "nested too deep"));
	assert_int_equal(parse(bridges, t, &err), -EINVAL);
	assert_non_null(strstr(err.text, "PCI bridges nested too deep"));
	free(bridges);
	assert_int_equal(parse(gpus, t, &err), -E2BIG);
	assert_non_null(strstr(err.text, "more than 64 GPUs"));
	assert_int_equal(lagom_topo_parse_nccl(
				 gpus, LAGOM_NCCL_TOPO_MAX_BYTES + 1, t, &err),
			 -E2BIG);
	free(deep);
	free(gpus);
	free(t);
}

/* Every prefix of a valid file: an error or a success, never a crash. */
static void test_truncated(void **state)
{
	struct lagom_node_topo *t = malloc(sizeof(*t));
	size_t len = strlen(nvlink_xml);

	for (size_t n = 0; n < len; n++) {
		struct lagom_error err = { 0 };
		int rc = lagom_topo_parse_nccl(nvlink_xml, n, t, &err);

		assert_true(rc == 0 || rc == -EINVAL);
		if (rc)
			assert_non_null(strstr(err.text, "line"));
	}
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvlink),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
