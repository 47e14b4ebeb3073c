# The layers (docs/architecture.md): each folder is one static library whose headers are
# included as "folder/x.h". There is no project-wide include path: a folder's headers are
# reachable only through its own library, so a file can include the headers of the
# libraries its library links and nothing else. An upward include (crawler/ including
# job/..., say) fails to build. Links are transitive (ss_server reaches crawler/ through
# ss_job), so the `layers` test (tests/layers.sh) checks each file's includes against
# the layer table of docs/architecture.md as well.

# sitescout_layer(TARGET FOLDER): make FOLDER's headers reachable to TARGET and to every
# target that links it.
function(sitescout_layer target folder)
  set(dir ${CMAKE_BINARY_DIR}/include/${folder})
  file(MAKE_DIRECTORY ${dir})
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${folder} ${dir}/${folder} SYMBOLIC)
  target_include_directories(${target} PUBLIC ${dir})
endfunction()
