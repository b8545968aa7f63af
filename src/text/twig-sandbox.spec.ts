import { twig } from 'twig';
import { TemplateProblem } from './twig-bounds';
import { compileSandboxed, MAX_ITERATIONS } from './twig-sandbox';

describe('compileSandboxed', () => {
  it('leaves the twig package itself untouched: the sandbox is a private instance', () => {
    compileSandboxed('{{ x }}');
    expect(twig({ data: '{{ x|raw }}{{ dump is defined }}' }).render({ x: '<b>' })).toBe(
      '<b>false',
    );
  });

  it('refuses a forbidden tag when compiling, with a TemplateProblem', () => {
    expect(() => compileSandboxed("{% include 'x' %}")).toThrow(TemplateProblem);
  });

  it('counts loop rounds per render, not per template', () => {
    const template = compileSandboxed(`{% for i in 1..${MAX_ITERATIONS} %}{% endfor %}done`);
    expect(template.render({}, 1000)).toBe('done');
    expect(template.render({}, 1000)).toBe('done');
  });

  it('renders again after a render was stopped by the watchdog', () => {
    const template = compileSandboxed("{{ x matches '/^(a+)+$/' ? 'y' : 'n' }}");
    expect(() => template.render({ x: `${'a'.repeat(40)}!` }, 20)).toThrow();
    expect(template.render({ x: 'aaa' }, 1000)).toBe('y');
  });
});
