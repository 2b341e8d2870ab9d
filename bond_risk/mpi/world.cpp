#include "bond_risk/mpi/world.h"

#include <mpi.h>

#include <iostream>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "engine/affinity.h"

namespace bond_risk::mpi {

namespace {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

}  // namespace

World::World(int* argc, char*** argv) {
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &local_size_);
  const std::vector<int> cpus = engine::allowed_cpus();
  MPI_Comm peers;
  MPI_Comm_split(local, cpus.empty() ? 0 : cpus.front(), rank_, &peers);
  MPI_Comm_size(peers, &cpu_peers_);
  MPI_Comm_rank(peers, &cpu_peer_rank_);
  MPI_Comm_free(&peers);
  MPI_Comm_free(&local);
}

World::~World() { MPI_Finalize(); }

std::vector<std::string> World::gather(const std::string& mine) const {
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank_ == 0 ? size_ : 0);
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> offsets(lengths.size());
  if (!lengths.empty()) std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
  std::string all(rank_ == 0 ? static_cast<std::size_t>(offsets.back() + lengths.back()) : 0, '\0');
  check(MPI_Gatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r) out.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return out;
}

int World::broadcast(int value) const {
  check(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return value;
}

void World::barrier() const { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

void World::abort(const std::string& message) const {
  std::cerr << "bond_risk_mpi: rank " << rank_ << " of " << size_ << ": " << message << "\n" << std::flush;
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return
}

}  // namespace bond_risk::mpi
