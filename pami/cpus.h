// How many CPUs the ranks of this node can share, to tell whether they outnumber them
// (oversubscription), which decides how a blocked call waits.
#pragma once

namespace pamir {

// CPUs usable on this node: the online CPUs, capped by the effective cpuset of this process's cgroup
// (a container's or a batch job's limit). Not this process's own affinity mask: a launcher that binds
// each rank to one core leaves every rank a mask of one CPU while the node's ranks still fit.
unsigned usable_cpus();

// Number of CPUs in a Linux CPU list such as "0-3,8,10-11"; 0 when the text is not such a list.
unsigned count_cpu_list(const char *text);

}  // namespace pamir
