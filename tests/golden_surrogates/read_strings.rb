# For each JSON text (hex, one a line on stdin): what JSON.parse gives for its first element (bytes in hex,
# String#length, MD5) or the error it raises, and what JSON.generate then does. Used by make_cases.py.
require 'json'
require 'digest/md5'
$stdin.each_line do |line|
  src = [line.strip].pack('H*').force_encoding('UTF-8')
  out = { 'input' => line.strip }
  begin
    value = JSON.parse(src)[0]
    out['bytes'] = value.unpack1('H*')
    out['length'] = value.length
    out['md5'] = Digest::MD5.hexdigest(value)
    begin
      JSON.generate([value])
      out['generate'] = nil
    rescue JSON::GeneratorError => e
      out['generate'] = e.message
    end
  rescue JSON::ParserError => e
    out['raises'] = e.class.name
    out['message'] = e.message.sub(/\A\d+: /, '').sub(/ at '.*\z/m, '')
  end
  puts JSON.generate(out)
end
