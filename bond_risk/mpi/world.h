// The MPI job this process is a rank of (OpenMPI), as an RAII object: MPI is
// initialised while a World lives and finalised when it ends. Only the
// thread that made the World calls MPI (MPI_THREAD_FUNNELED): the engine's
// workers never do.
#pragma once

#include <string>
#include <vector>

namespace bond_risk::mpi {

class World {
 public:
  World(int* argc, char*** argv);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Ranks on this machine (sharing its memory).
  int local_size() const { return local_size_; }
  // Ranks of this machine that may run on the same CPUs as this one (the
  // same first CPU it may use: mpirun binds ranks to cores, sockets or
  // nothing), and this rank's place among them.
  int cpu_peers() const { return cpu_peers_; }
  int cpu_peer_rank() const { return cpu_peer_rank_; }

  // Every rank's `mine`, in rank order, on rank 0 (empty on the others).
  // Collective: every rank must call it.
  std::vector<std::string> gather(const std::string& mine) const;
  // Rank 0's `value`, on every rank. Collective.
  int broadcast(int value) const;
  // Waits for every rank.
  void barrier() const;
  // Ends the whole job (every rank) after printing `message` naming this rank.
  [[noreturn]] void abort(const std::string& message) const;

 private:
  int rank_ = 0, size_ = 1, local_size_ = 1, cpu_peers_ = 1, cpu_peer_rank_ = 0;
};

}  // namespace bond_risk::mpi
