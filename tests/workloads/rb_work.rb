# Ruby workloads for smolder's CRuby tests; runs on 2.0 and later.
#   rb_work.rb chain SECONDS    the main loop calls outer -> Klass#run ->
#                               Other.spin, tight loops in spin
#   rb_work.rb chains SECONDS   a_outer -> Alpha#mid -> Alpha.leaf (zlib) and
#                               b_outer -> Beta#mid -> Beta.leaf (SHA-256),
#                               the main loop switching chains about every
#                               millisecond
#   rb_work.rb threads SECONDS  two threads named left and right, each with
#                               its own chain (worker_a -> Left#spin,
#                               worker_b -> Right#spin), the main thread
#                               asleep
require 'zlib'
require 'digest'

def now
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

class Other
  def self.spin(n)
    total = 0
    i = 0
    while i < n
      total += i * i % 7
      i += 1
    end
    total
  end
end

class Klass
  def run(n)
    Other.spin(n)
  end
end

def outer(until_t)
  k = Klass.new
  k.run(20000) while now < until_t
end

class Alpha
  def self.leaf(blob, until_t)
    Zlib::Deflate.deflate(blob, 6) while now < until_t
  end

  def mid(blob, until_t)
    Alpha.leaf(blob, until_t)
  end
end

class Beta
  def self.leaf(blob, until_t)
    Digest::SHA256.digest(blob) while now < until_t
  end

  def mid(blob, until_t)
    Beta.leaf(blob, until_t)
  end
end

def a_outer(blob, until_t)
  Alpha.new.mid(blob, until_t)
end

def b_outer(blob, until_t)
  Beta.new.mid(blob, until_t)
end

def chains(until_t)
  blob = (0...16384).map { |i| ((i * 7919 + (i >> 3)) & 0xff).chr }.join
  while now < until_t
    t = now
    a_outer(blob, t + 0.001)
    b_outer(blob, t + 0.002)
  end
end

class Left
  def spin(n)
    total = 0
    n.times { |i| total += i ^ 3 }
    total
  end
end

class Right
  def spin(n)
    total = 0
    n.times { |i| total += i ^ 5 }
    total
  end
end

def worker_a(until_t)
  l = Left.new
  l.spin(5000) while now < until_t
end

def worker_b(until_t)
  r = Right.new
  r.spin(5000) while now < until_t
end

def threads(until_t)
  left = Thread.new { worker_a(until_t) }
  right = Thread.new { worker_b(until_t) }
  # Thread#name= names the native thread too: samples tell them apart
  left.name = 'left'
  right.name = 'right'
  [left, right].each(&:join)
end

mode = ARGV[0] || 'chain'
until_t = now + (ARGV[1] || '5').to_f
case mode
when 'chain' then outer(until_t)
when 'chains' then chains(until_t)
when 'threads' then threads(until_t)
else abort "unknown mode #{mode}"
end
