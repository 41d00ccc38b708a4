import { networkCpus } from '../../infra/local/network-cpus';

describe('the CPUs the local fleet pins its network daemons to', () => {
  it('the last CPU by default, none on a one-CPU host', () => {
    expect(networkCpus({}, 2)).toBe('1');
    expect(networkCpus({}, 8)).toBe('7');
    expect(networkCpus({}, 1)).toBeUndefined();
  });

  it('FRAGBENCH_NETWORK_CPUS chooses a CPU list, or "all" for no pinning', () => {
    expect(networkCpus({ FRAGBENCH_NETWORK_CPUS: '0' }, 2)).toBe('0');
    expect(networkCpus({ FRAGBENCH_NETWORK_CPUS: '0-1' }, 2)).toBe('0-1');
    expect(networkCpus({ FRAGBENCH_NETWORK_CPUS: '1,3' }, 4)).toBe('1,3');
    expect(networkCpus({ FRAGBENCH_NETWORK_CPUS: 'all' }, 2)).toBeUndefined();
  });

  it("a list that is not this host's CPUs is refused, naming the variable and the fix", () => {
    expect(() => networkCpus({ FRAGBENCH_NETWORK_CPUS: '2' }, 2)).toThrow(
      /^FRAGBENCH_NETWORK_CPUS="2": give a CPU list of this host \(0-1\), e\.g\. "1" or "0-1", or "all"/,
    );
    expect(() => networkCpus({ FRAGBENCH_NETWORK_CPUS: 'last' }, 2)).toThrow(/FRAGBENCH_NETWORK_CPUS="last"/);
    expect(() => networkCpus({ FRAGBENCH_NETWORK_CPUS: '0-' }, 2)).toThrow(/FRAGBENCH_NETWORK_CPUS/);
  });
});
