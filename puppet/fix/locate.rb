# fsmove fix's locator (puppet/fix/locate.go runs it in the run's image):
# prints, for each manifest named on the command line, the resource
# declarations and the relationship arrows that Puppet's own parser finds,
# with their byte offsets and lengths, as one JSON object on stdout
# (a line of its own, after the marker FSMOVE-FIX-MANIFESTS). A file
# that does not parse has its error and nothing else. Offsets are bytes
# (measured: a UTF-8 comment before a resource shifts it by its bytes).
# Each resource has its guards: the branches of if, unless and case, and
# the lambdas, it is declared in, outermost first (a resource is declared
# only where each of its guards holds).
require 'puppet'
require 'json'

M = Puppet::Pops::Model

def span(o)
  { 'offset' => o.offset, 'length' => o.length }
end

def text(o, src)
  src.byteslice(o.offset, o.length)
end

out = { 'files' => [] }
parser = Puppet::Pops::Parser::EvaluatingParser.new
ARGV.each do |path|
  f = { 'path' => path, 'resources' => [], 'arrows' => [], 'error' => nil }
  begin
    src = File.binread(path)
    program = parser.parse_file(path)
  rescue StandardError => e
    f['error'] = e.message
    out['files'] << f
    next
  end
  locator = program.locator
  # The names of the variables an expression reads ("title", "apt::dir").
  variables = lambda do |o|
    names = []
    visit = lambda do |e|
      if e.is_a?(M::VariableExpression)
        names << (e.expr.is_a?(M::QualifiedName) ? e.expr.value : text(e.expr, src))
      end
      e._pcore_contents { |c| visit.call(c) }
    end
    visit.call(o)
    names.uniq
  end
  guard = lambda do |o, branch|
    { 'offset' => o.offset, 'branch' => branch, 'line' => locator.line_for_offset(o.offset) }
  end
  walk = lambda do |o, container, guards|
    return if o.nil?
    case o
    when M::IfExpression # unless too: a subclass
      walk.call(o.test, container, guards)
      walk.call(o.then_expr, container, guards + [guard.call(o, 'then')])
      walk.call(o.else_expr, container, guards + [guard.call(o, 'else')])
      return
    when M::CaseExpression
      walk.call(o.test, container, guards)
      o.options.each_with_index { |opt, i| walk.call(opt, container, guards + [guard.call(o, "option #{i}")]) }
      return
    when M::LambdaExpression
      guards += [guard.call(o, 'lambda')]
    end
    case o
    when M::HostClassDefinition
      container = { 'kind' => 'class', 'name' => o.name, 'params' => o.parameters.map(&:name) }
    when M::ResourceTypeDefinition
      container = { 'kind' => 'define', 'name' => o.name, 'params' => o.parameters.map(&:name) }
    when M::NodeDefinition
      container = { 'kind' => 'node', 'name' => '' }
    end
    case o
    when M::ResourceExpression
      tn = o.type_name
      r = { 'type' => tn.is_a?(M::QualifiedName) ? tn.value : text(tn, src), 'form' => o.form.to_s,
            'container' => container, 'guards' => guards, 'bodies' => [] }.merge(span(o))
      o.bodies.each do |b|
        t = b.title
        body = { 'title' => text(t, src), 'title_span' => span(t), 'title_literal' => t.is_a?(M::LiteralString) ? t.value : nil,
                 'title_vars' => variables.call(t), 'line' => locator.line_for_offset(t.offset), 'ops' => [] }.merge(span(b))
        b.operations.each do |op|
          next unless op.is_a?(M::AttributeOperation)
          v = op.value_expr
          elems = v.is_a?(M::LiteralList) ? v.values.map { |e| span(e).merge('text' => text(e, src)) } : nil
          body['ops'] << { 'name' => op.attribute_name, 'operator' => op.operator.to_s,
                           'value' => span(v).merge('text' => text(v, src)), 'list' => elems }.merge(span(op))
        end
        r['bodies'] << body
      end
      f['resources'] << r
    when M::RelationshipExpression
      # In a chain a -> b ~> c the left of ~> is the arrow a -> b: the
      # operand next to an operator is the nearest end of its neighbour.
      left = o.left_expr
      left = left.right_expr while left.is_a?(M::RelationshipExpression)
      right = o.right_expr
      right = right.left_expr while right.is_a?(M::RelationshipExpression)
      f['arrows'] << { 'operator' => o.operator.to_s, 'left' => span(left).merge('text' => text(left, src)),
                       'right' => span(right).merge('text' => text(right, src)),
                       'line' => locator.line_for_offset(o.offset), 'container' => container }.merge(span(o))
    end
    o._pcore_contents { |c| walk.call(c, container, guards) }
  end
  walk.call(program, nil, [])
  out['files'] << f
end
# One line, after a marker: Ruby's and Puppet's warnings share the stream.
puts 'FSMOVE-FIX-MANIFESTS ' + JSON.generate(out)
