import { networkCpus, PINNED_MAX_NODES } from '../../infra/local/network-cpus';

describe('the CPUs the local fleet pins its network daemons to', () => {
  it('the last CPU by default, none on a one-CPU host', () => {
    expect(networkCpus(4, {}, 2)).toBe('1');
    expect(networkCpus(4, {}, 8)).toBe('7');
    expect(networkCpus(4, {}, 1)).toBeUndefined();
  });

  it(`none by default for a fleet of more than ${PINNED_MAX_NODES} nodes, where one core is the ceiling; the variable still decides`, () => {
    expect(networkCpus(PINNED_MAX_NODES, {}, 2)).toBe('1');
    expect(networkCpus(PINNED_MAX_NODES + 1, {}, 2)).toBeUndefined();
    expect(networkCpus(33, { FRAGBENCH_NETWORK_CPUS: '1' }, 2)).toBe('1');
  });

  it('FRAGBENCH_NETWORK_CPUS chooses a CPU list, or "all" for no pinning', () => {
    expect(networkCpus(4, { FRAGBENCH_NETWORK_CPUS: '0' }, 2)).toBe('0');
    expect(networkCpus(4, { FRAGBENCH_NETWORK_CPUS: '0-1' }, 2)).toBe('0-1');
    expect(networkCpus(4, { FRAGBENCH_NETWORK_CPUS: '1,3' }, 4)).toBe('1,3');
    expect(networkCpus(4, { FRAGBENCH_NETWORK_CPUS: 'all' }, 2)).toBeUndefined();
  });

  it("a list that is not this host's CPUs is refused, naming the variable and the fix", () => {
    expect(() => networkCpus(4, { FRAGBENCH_NETWORK_CPUS: '2' }, 2)).toThrow(
      /^FRAGBENCH_NETWORK_CPUS="2": give a CPU list of this host \(0-1\), e\.g\. "1" or "0-1", or "all"/,
    );
    expect(() => networkCpus(4, { FRAGBENCH_NETWORK_CPUS: 'last' }, 2)).toThrow(/FRAGBENCH_NETWORK_CPUS="last"/);
    expect(() => networkCpus(4, { FRAGBENCH_NETWORK_CPUS: '0-' }, 2)).toThrow(/FRAGBENCH_NETWORK_CPUS/);
  });
});
